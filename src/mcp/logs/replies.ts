import { Type as t } from "@sinclair/typebox";
import { Timestamp } from "../../http/replies";

/** What /api/mcp-logs answers (search.ts `mcpLogView`, cost-histogram.ts). */

const Text = t.Union([t.String(), t.Null()]);
const Figure = t.Union([t.Number(), t.Null()]);

export const McpLogEntry = t.Object(
  {
    id: t.String(),
    timestamp: Timestamp,
    llm_request_id: t.Union([t.String(), t.Null()], { description: "The chat request whose reply asked for the call; null for direct calls." }),
    tool_name: t.String(),
    server_label: t.String(),
    mcp_client_id: Text,
    source: t.String({ description: "Which door the call came through: `tool_execute`, `agent` or `mcp_server`." }),
    status: t.Union([t.Literal("processing"), t.Literal("success"), t.Literal("error")]),
    arguments: t.Unknown({ description: "The call's arguments; null when content logging is off." }),
    result: t.Union([t.String(), t.Null()], { description: "The result text; null when content logging is off or there was none." }),
    error_message: Text,
    notifications: t.Union([t.Object({ progress: t.Number(), messages: t.Number(), cancelled: t.Boolean() }), t.Null()], {
      description: "What was relayed during a call from an MCP caller; null for other calls.",
    }),
    latency: t.Union([t.Number(), t.Null()], { description: "Milliseconds; null while processing." }),
    cost: Figure,
    virtual_key_id: Text,
    virtual_key_name: Text,
    region: Text,
    virtual_server: t.Union([t.String(), t.Null()], { description: "The slug of the virtual server the call came through (/mcp/v/{slug}); null for other doors." }),
  },
  { title: "McpLogEntry", description: "One MCP tool call." },
);

export const McpLogPage = t.Object({
  logs: t.Array(McpLogEntry),
  count: t.Integer(),
  total: t.Integer({ description: "Calls matching, all pages." }),
  limit: t.Integer(),
  offset: t.Integer(),
  sort_by: t.Union([t.Literal("timestamp"), t.Literal("latency"), t.Literal("cost")]),
  order: t.Union([t.Literal("asc"), t.Literal("desc")]),
}, { title: "McpLogPage" });

export const McpCostHistogram = t.Object({
  buckets: t.Array(t.Object({ timestamp: Timestamp, total_cost: t.Number({ description: "USD." }) }), { description: "Every bucket of the range, zero when empty." }),
  bucket_size_seconds: t.Integer(),
}, { title: "McpCostHistogram" });
