import { type Static, Type as t } from "@sinclair/typebox";
import { count, desc, asc, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type McpToolLogRow, mcpToolLogs } from "../../db/schema";
import { NON_NEGATIVE_INTEGER } from "../../logs/filters";
import { McpLogFilterFields, type McpLogFilters } from "./filters";

const SORT_COLUMNS = { timestamp: mcpToolLogs.timestamp, latency: mcpToolLogs.latencyMs, cost: mcpToolLogs.cost };
const DEFAULT_PAGE_SIZE = 50;

/** GET /api/mcp-logs: the filters of spec 4.7 plus paging and sorting. */
export const McpLogListQuery = t.Object({
  ...McpLogFilterFields,
  limit: t.Optional(t.String({ pattern: "^0*([1-9]\\d{0,2}|1000)$", description: `1..1000, default ${DEFAULT_PAGE_SIZE}` })),
  offset: t.Optional(NON_NEGATIVE_INTEGER),
  sort_by: t.Optional(t.Union([t.Literal("timestamp"), t.Literal("latency"), t.Literal("cost")])),
  order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
});
export type McpLogListQuery = Static<typeof McpLogListQuery>;

export function mcpLogView(row: McpToolLogRow) {
  return {
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    llm_request_id: row.llmRequestId,
    tool_name: row.toolName,
    server_label: row.serverLabel,
    mcp_client_id: row.mcpClientId,
    source: row.source,
    status: row.status,
    arguments: row.arguments === null ? null : (JSON.parse(row.arguments) as unknown),
    result: row.result,
    error_message: row.errorMessage,
    notifications: row.notifications === null ? null : (JSON.parse(row.notifications) as { progress: number; messages: number; cancelled: boolean }),
    latency: row.latencyMs,
    cost: row.cost,
    virtual_key_id: row.virtualKeyId,
    virtual_key_name: row.virtualKeyName,
    region: row.region,
    virtual_server: row.virtualServer,
  };
}

export async function searchMcpLogs(db: Database, filters: McpLogFilters, query: McpLogListQuery) {
  const limit = query.limit ? Number(query.limit) : DEFAULT_PAGE_SIZE;
  const offset = query.offset ? Number(query.offset) : 0;
  const sortBy = query.sort_by ?? "timestamp";
  const order = query.order ?? "desc";
  const direction = order === "asc" ? asc : desc;
  // Calls still processing have no latency or cost yet: they sort last either way.
  const column = SORT_COLUMNS[sortBy];
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(mcpToolLogs)
      .where(filters.where)
      .orderBy(sql`${column} IS NULL`, direction(column), direction(mcpToolLogs.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(mcpToolLogs).where(filters.where),
  ]);
  return { logs: rows.map(mcpLogView), count: rows.length, total: totals?.total ?? 0, limit, offset, sort_by: sortBy, order };
}
