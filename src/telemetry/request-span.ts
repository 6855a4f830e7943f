import type { InferenceOutcome, RequestContext } from "../inference/hooks";
import { REQUEST_TYPE } from "../upstream/operations";
import type { SpanRecord } from "./otlp-exporter";

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/;

const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");

/** A W3C `traceparent` from the client joins its trace; otherwise the request starts one. */
function traceOf(headers: Headers): { traceId: string; parentSpanId?: string } {
  const match = TRACEPARENT.exec(headers.get("traceparent")?.trim().toLowerCase() ?? "");
  if (match && !/^0+$/.test(match[1]!) && !/^0+$/.test(match[2]!)) return { traceId: match[1]!, parentSpanId: match[2]! };
  return { traceId: randomHex(16) };
}

const nanos = (milliseconds: number) => BigInt(Math.round(milliseconds * 1_000_000));

/** One SERVER span per inference request, with the GenAI semantic-convention attributes. */
export function requestSpan(context: RequestContext, outcome: InferenceOutcome, target: { provider: string; model: string }): SpanRecord {
  const start = nanos(context.receivedAt.getTime());
  const usage = outcome.summary.usage;
  return {
    ...traceOf(context.headers),
    spanId: randomHex(8),
    name: `${REQUEST_TYPE[context.operation]} ${target.provider}/${target.model}`,
    startTimeUnixNano: start,
    endTimeUnixNano: start + nanos(outcome.latencyMs),
    attributes: {
      "gen_ai.operation.name": context.operation,
      "gen_ai.system": target.provider,
      "gen_ai.request.model": context.requestedModel,
      "gen_ai.response.model": target.model,
      "gen_ai.usage.input_tokens": usage?.prompt_tokens,
      "gen_ai.usage.output_tokens": usage?.completion_tokens,
      "gen_ai.response.finish_reasons": outcome.summary.finishReason ?? undefined,
      "http.response.status_code": outcome.status,
      "error.type": outcome.error?.errorType,
      "gateway.request_id": context.id,
      "gateway.stream": context.stream,
      "gateway.cache_hit": outcome.cacheHit,
      "gateway.cost_usd": outcome.cost,
      "gateway.is_fallback": outcome.answered?.isFallback,
      "gateway.attempts": outcome.attempts.length,
    },
    error: outcome.error?.message,
  };
}
