import type { Attempt } from "../db/schema/types";
import type { InferenceOutcome, RequestContext } from "../inference/hooks";
import { loggedBodyJson } from "../logs/logged-body";
import type { Operation } from "../upstream/operations";
import { type Attributes, SPAN_KIND, type SpanEvent, type SpanRecord } from "./otlp-encoding";
import { nanos, type SpanPlace } from "./trace-context";

/** `gen_ai.operation.name`: the conventions' well-known names where one fits, else the gateway's own. */
const OPERATION_NAMES: Partial<Record<Operation, string>> = { chat: "chat", responses: "chat", text_completion: "text_completion", embedding: "embeddings" };
/** `gen_ai.provider.name`: the conventions' well-known names for the providers that have one. */
const PROVIDER_NAMES: Record<string, string> = { genai: "gcp.gemini", gemini: "gcp.gemini", vertex: "gcp.vertex_ai", bedrock: "aws.bedrock", azure: "azure.ai.openai", mistral: "mistral_ai", xai: "x_ai" };

export const genAiOperation = (operation: Operation) => OPERATION_NAMES[operation] ?? operation;
export const genAiProvider = (provider: string) => PROVIDER_NAMES[provider] ?? provider;

/** Each try at a target (a key, a fallback), as an event: which answered, which failed and how. */
const attemptEvent = (attempt: Attempt, at: bigint): SpanEvent => ({
  name: "gateway.attempt",
  timeUnixNano: at,
  attributes: {
    "gen_ai.provider.name": genAiProvider(attempt.provider),
    "gen_ai.request.model": attempt.model,
    "gateway.key_id": attempt.key,
    "http.response.status_code": attempt.status,
    "error.type": attempt.error_type,
    "gateway.is_fallback": attempt.is_fallback,
  },
});

/** The prompt and the reply, as the request log keeps them (credentials redacted, inline media left out). */
const contentEvent = (context: RequestContext, outcome: InferenceOutcome, at: bigint): SpanEvent => ({
  name: "gen_ai.client.inference.operation.details",
  timeUnixNano: at,
  attributes: { "gen_ai.input.messages": loggedBodyJson(context.body), "gen_ai.output.messages": outcome.summary.content },
});

function genAiAttributes(context: RequestContext, outcome: InferenceOutcome, target: { provider: string; model: string }): Attributes {
  const usage = outcome.summary.usage;
  const ttft = outcome.summary.timeToFirstTokenMs;
  return {
    "gen_ai.operation.name": genAiOperation(context.operation),
    "gen_ai.provider.name": genAiProvider(target.provider),
    "gen_ai.request.model": context.requestedModel,
    "gen_ai.response.model": target.model,
    "gen_ai.usage.input_tokens": usage?.prompt_tokens,
    "gen_ai.usage.output_tokens": usage?.completion_tokens,
    "gen_ai.response.finish_reasons": outcome.summary.finishReason ? [outcome.summary.finishReason] : undefined,
    "gen_ai.response.time_to_first_chunk": ttft === undefined ? undefined : ttft / 1000,
  };
}

function gatewayAttributes(context: RequestContext, outcome: InferenceOutcome): Attributes {
  return {
    "gateway.request_id": context.id,
    "gateway.stream": context.stream,
    "gateway.virtual_key.id": context.caller?.virtualKeyId,
    "gateway.virtual_key.name": context.caller?.virtualKeyName,
    "gateway.team.id": context.caller?.teamId,
    "gateway.customer.id": context.caller?.customerId,
    "gateway.cache_hit": outcome.cacheHit,
    "gateway.cost_usd": outcome.cost,
    "gateway.is_fallback": outcome.answered?.isFallback,
    "gateway.attempts": outcome.attempts.length,
  };
}

/**
 * One CLIENT span per inference request (the gateway calling a model, as the GenAI semantic
 * conventions see it), with the conventions' attributes, the gateway's own, an event per
 * attempt and, with `captureContent`, the prompt and reply as an event.
 */
export function requestSpan(context: RequestContext, outcome: InferenceOutcome, target: { provider: string; model: string }, place: SpanPlace, captureContent: boolean): SpanRecord {
  const start = nanos(context.receivedAt.getTime());
  const end = start + nanos(outcome.latencyMs);
  const attempts = outcome.attempts.map((attempt) => attemptEvent(attempt, start));
  return {
    ...place,
    name: `${genAiOperation(context.operation)} ${context.requestedModel}`,
    kind: SPAN_KIND.client,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: {
      ...genAiAttributes(context, outcome, target),
      "http.response.status_code": outcome.status,
      "error.type": outcome.error?.errorType,
      ...gatewayAttributes(context, outcome),
    },
    events: captureContent ? [...attempts, contentEvent(context, outcome, end)] : attempts,
    error: outcome.error?.message,
  };
}
