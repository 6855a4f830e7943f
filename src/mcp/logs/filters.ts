import { type Static, Type as t } from "@sinclair/typebox";
import { and, gte, inArray, lte, or, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { mcpToolLogs } from "../../db/schema";
import { LogFilterFields } from "../../logs/filters";
import { resolveWindow } from "../../logs/time-window";
import { commaList } from "../../http/comma-list";
import { containsText } from "../../db/contains-text";

const LIST_COLUMNS = {
  tool_names: mcpToolLogs.toolName,
  server_labels: mcpToolLogs.serverLabel,
  status: mcpToolLogs.status,
  virtual_key_ids: mcpToolLogs.virtualKeyId,
  llm_request_ids: mcpToolLogs.llmRequestId,
  regions: mcpToolLogs.region,
  virtual_servers: mcpToolLogs.virtualServer,
} satisfies Record<string, AnySQLiteColumn>;

/** Spec 4.7's filters (shared by the MCP log list and the cost histogram); lists are comma-separated. */
export const McpLogFilterFields = {
  tool_names: t.Optional(t.String()),
  server_labels: t.Optional(t.String()),
  status: LogFilterFields.status,
  virtual_key_ids: t.Optional(t.String()),
  llm_request_ids: t.Optional(t.String()),
  regions: t.Optional(t.String({ description: "GATEWAY_REGION of the node that made the call" })),
  virtual_servers: t.Optional(t.String({ description: "Slugs of the virtual servers the calls came through" })),
  start_time: LogFilterFields.start_time,
  end_time: LogFilterFields.end_time,
  period: LogFilterFields.period,
  min_latency: LogFilterFields.min_latency,
  max_latency: LogFilterFields.max_latency,
  content_search: t.Optional(t.String()),
};
export const McpLogFilterQuery = t.Object(McpLogFilterFields);
export type McpLogFilterQuery = Static<typeof McpLogFilterQuery>;

export interface McpLogFilters {
  where: SQL | undefined;
  window: { start?: Date; end?: Date };
}

function conditions(query: McpLogFilterQuery, window: McpLogFilters["window"]): SQL[] {
  const found: Array<SQL | undefined> = Object.entries(LIST_COLUMNS).map(([name, column]) => {
    const values = commaList(query[name as keyof typeof LIST_COLUMNS]);
    return values && inArray(column, values);
  });
  if (window.start) found.push(gte(mcpToolLogs.timestamp, window.start));
  if (window.end) found.push(lte(mcpToolLogs.timestamp, window.end));
  if (query.min_latency !== undefined) found.push(gte(mcpToolLogs.latencyMs, Number(query.min_latency)));
  if (query.max_latency !== undefined) found.push(lte(mcpToolLogs.latencyMs, Number(query.max_latency)));
  const search = query.content_search?.trim();
  if (search) found.push(or(containsText(mcpToolLogs.arguments, search), containsText(mcpToolLogs.result, search)));
  return found.filter((condition) => condition !== undefined);
}

/** Turns validated query parameters into a WHERE clause; `now` anchors `period`. */
export function readMcpLogFilters(query: McpLogFilterQuery, now: Date): McpLogFilters {
  const window = resolveWindow(query, now);
  return { where: and(...conditions(query, window)), window };
}
