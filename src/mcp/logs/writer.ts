import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mcpToolLogs, type NewMcpToolLogRow } from "../../db/schema";
import { refusedForItsValues } from "../../db/unavailable";
import { retried } from "../../db/write-retries";
import { loggedBodyJson } from "../../logs/logged-body";

export type ToolCallSource = "tool_execute" | "agent" | "mcp_server";

export interface ToolCallStart {
  toolName: string;
  serverLabel: string;
  /** Absent for a call the gateway answers itself (`search_tools`). */
  mcpClientId?: string;
  source: ToolCallSource;
  llmRequestId?: string;
  arguments: unknown;
  virtualKey?: { id: string; name: string };
  /** The slug of the virtual server the call came through. */
  virtualServer?: string;
}

export interface ToolCallEnd {
  status: "success" | "error";
  /** The result as logged; made only while content logging is on. */
  result?: () => string;
  errorMessage?: string;
  latencyMs: number;
  cost?: number;
  /** For calls from an MCP caller: the progress and log notifications relayed to it. */
  notifications?: { progress: number; messages: number };
  /** The caller cancelled the call (the upstream was told). */
  cancelled?: boolean;
}

/** Past every row's: one database writes at a time, so each write's is its own, on every node. */
const nextChangeSeq = sql`(SELECT coalesce(max(${mcpToolLogs.changeSeq}), 0) + 1 FROM ${mcpToolLogs})`;

/**
 * The waits before another attempt at a row the database did not take: many callers at once keep
 * a libSQL server's one writer busy past its timeout. Short, as the tool call waits for its row.
 */
const WRITE_RETRIES = { delaysMs: [50, 100, 250, 500, 1_000], refuses: refusedForItsValues };

/**
 * Writes one row per MCP tool call: `processing` when it starts, completed when it ends.
 * Arguments and results are kept only while content logging is on, credentials and inline media
 * left out as in request logs. A write the database keeps refusing is reported and swallowed:
 * logging never fails a tool call.
 */
export class McpLogWriter {
  constructor(
    private readonly db: Database,
    private readonly contentLogging: () => boolean,
    private readonly region: string | null = null,
  ) {}

  async start(call: ToolCallStart): Promise<string> {
    const id = crypto.randomUUID();
    const row: NewMcpToolLogRow = {
      id,
      timestamp: new Date(),
      llmRequestId: call.llmRequestId ?? null,
      toolName: call.toolName,
      serverLabel: call.serverLabel,
      mcpClientId: call.mcpClientId ?? null,
      source: call.source,
      status: "processing",
      arguments: this.contentLogging() ? loggedBodyJson(call.arguments) : null,
      virtualKeyId: call.virtualKey?.id ?? null,
      virtualKeyName: call.virtualKey?.name ?? null,
      region: this.region,
      virtualServer: call.virtualServer ?? null,
    };
    await retried(() => this.db.insert(mcpToolLogs).values({ ...row, changeSeq: nextChangeSeq }), WRITE_RETRIES).catch((error) => console.error("MCP log: a tool call could not be recorded", error));
    return id;
  }

  async finish(id: string, end: ToolCallEnd): Promise<void> {
    const changes = {
      status: end.status,
      result: this.contentLogging() ? (end.result?.() ?? null) : null,
      errorMessage: end.errorMessage ?? null,
      latencyMs: end.latencyMs,
      cost: end.cost ?? null,
      notifications: end.notifications ? JSON.stringify({ ...end.notifications, cancelled: end.cancelled === true }) : null,
      changeSeq: nextChangeSeq,
    };
    await retried(() => this.db.update(mcpToolLogs).set(changes).where(eq(mcpToolLogs.id, id)), WRITE_RETRIES).catch((error) => console.error(`MCP log: tool call ${id} could not be completed`, error));
  }
}
