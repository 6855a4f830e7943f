import type { ToolCallEnd, ToolCallStart } from "../mcp/logs/writer";
import { type Attributes, SPAN_KIND, type SpanEvent, type SpanRecord } from "./otlp-encoding";
import { loggedBodyJson } from "../logs/logged-body";
import { nanos, randomHex } from "./trace-context";

/** The span a tool call sits in: its request's, when the call was made for one still being served. */
export interface ParentSpan {
  traceId: string;
  spanId: string;
}

/** The arguments and the result, as the MCP log keeps them (credentials redacted). */
const contentEvent = (call: ToolCallStart, end: ToolCallEnd, at: bigint): SpanEvent => ({
  name: "gen_ai.tool.call.details",
  timeUnixNano: at,
  attributes: { "gen_ai.tool.call.arguments": loggedBodyJson(call.arguments), "gen_ai.tool.call.result": end.result?.() },
});

function toolAttributes(call: ToolCallStart, end: ToolCallEnd): Attributes {
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.toolName,
    "gen_ai.tool.type": "extension",
    "error.type": end.status === "error" ? (end.cancelled ? "cancelled" : "tool_error") : undefined,
    "gateway.mcp.server": call.serverLabel,
    "gateway.mcp.client_id": call.mcpClientId,
    "gateway.mcp.source": call.source,
    "gateway.request_id": call.llmRequestId,
    "gateway.virtual_key.id": call.virtualKey?.id,
    "gateway.virtual_key.name": call.virtualKey?.name,
    "gateway.cost_usd": end.cost,
  };
}

/**
 * An INTERNAL `execute_tool {tool}` span for an MCP tool call (GenAI semantic conventions), a
 * child of its request's span when it has one, else the root of a trace of its own.
 */
export function toolSpan(call: ToolCallStart, end: ToolCallEnd, startedAt: number, parent: ParentSpan | undefined, captureContent: boolean): SpanRecord {
  const start = nanos(startedAt);
  const finish = start + nanos(end.latencyMs);
  return {
    traceId: parent?.traceId ?? randomHex(16),
    spanId: randomHex(8),
    ...(parent ? { parentSpanId: parent.spanId } : {}),
    name: `execute_tool ${call.toolName}`,
    kind: SPAN_KIND.internal,
    startTimeUnixNano: start,
    endTimeUnixNano: finish,
    attributes: toolAttributes(call, end),
    events: captureContent ? [contentEvent(call, end, finish)] : [],
    error: end.status === "error" ? (end.errorMessage ?? "the tool reported an error") : undefined,
  };
}
