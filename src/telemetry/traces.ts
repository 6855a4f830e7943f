import type { RequestContext } from "../inference/hooks";
import type { ToolCallObserver } from "../mcp/logs/observed";
import type { OtlpTraceExporter } from "./otlp-exporter";
import { spanPlaceFor, type SpanPlace } from "./trace-context";
import { toolSpan } from "./tool-span";

/**
 * What a configured OTLP export keeps while requests run: each admitted request's span place,
 * by request id, so the MCP tool calls made for it (agent mode) become its children.
 */
export function createTraces(exporter: OtlpTraceExporter, captureContent: boolean) {
  const running = new Map<string, SpanPlace>();
  const onToolCall: ToolCallObserver = (call, end, startedAt) => {
    const parent = call.llmRequestId ? running.get(call.llmRequestId) : undefined;
    exporter.export(toolSpan(call, end, startedAt, parent, captureContent));
  };
  return {
    exporter,
    captureContent,
    onToolCall,
    begin(context: RequestContext): void {
      running.set(context.id, spanPlaceFor(context.headers));
    },
    /** The request's span place, taken out of the running ones (made now for a request never admitted). */
    end(context: RequestContext): SpanPlace {
      const place = running.get(context.id) ?? spanPlaceFor(context.headers);
      running.delete(context.id);
      return place;
    },
  };
}
export type Traces = ReturnType<typeof createTraces>;
