import type { NewRequestLogRow } from "../db/schema/logs";
import type { CallerIdentity, InferenceOutcome, RequestContext } from "../inference/hooks";
import type { ModelRef } from "../inference/model-ref";
import { REQUEST_TYPE } from "../upstream/operations";
import { loggedBodyJson } from "./logged-body";

/** The target a row is attributed to: the one that answered, else the primary the client asked for. */
function attributedTarget(context: RequestContext, outcome: InferenceOutcome): ModelRef {
  if (outcome.answered) return outcome.answered.target;
  const primary = context.targets[0];
  if (primary) return primary;
  const slash = context.requestedModel.indexOf("/");
  return slash > 0 ? { provider: context.requestedModel.slice(0, slash), model: context.requestedModel.slice(slash + 1) } : { provider: "", model: context.requestedModel };
}

/** The name the client used, when it is not simply the target's own name. */
function aliasOf(requested: string, target: ModelRef): string | null {
  return requested === target.model || requested === `${target.provider}/${target.model}` ? null : requested;
}

/** The columns naming who called: virtual key, team, customer... (all null for an anonymous caller). */
export function callerColumns(caller: CallerIdentity | undefined) {
  if (!caller) return NO_CALLER;
  return {
    virtualKeyId: caller?.virtualKeyId ?? null,
    virtualKeyName: caller?.virtualKeyName ?? null,
    teamId: caller?.teamId ?? null,
    customerId: caller?.customerId ?? null,
    userId: caller?.userId ?? null,
    businessUnitId: caller?.businessUnitId ?? null,
    projectId: caller?.projectId ?? null,
  };
}

/** The columns of a request no virtual key made: one shared record, spread into each row. */
const NO_CALLER = Object.freeze({ virtualKeyId: null, virtualKeyName: null, teamId: null, customerId: null, userId: null, businessUnitId: null, projectId: null });

/** The total a usage reports, else the sum of its parts; 0 without usage. */
const totalTokensOf = (usage: InferenceOutcome["summary"]["usage"]) => usage?.total_tokens ?? (usage ? usage.prompt_tokens + usage.completion_tokens : 0);

/** The log row of a settled request; tool call names are kept whether or not content is logged. */
/** `region`: GATEWAY_REGION of this node, null when it names none. */
export function logRowFromSettled(context: RequestContext, outcome: InferenceOutcome, contentLogging: boolean, region: string | null = null): NewRequestLogRow {
  const target = attributedTarget(context, outcome);
  const failed = outcome.error !== undefined || outcome.status >= 400;
  const usage = outcome.summary.usage;
  // One object literal (only the caller's columns are shared, with refused requests' rows): the row is built on every request.
  return {
    id: context.id,
    parentRequestId: context.parentRequestId ?? null,
    timestamp: context.receivedAt,
    object: REQUEST_TYPE[context.operation],
    provider: target.provider,
    model: target.model,
    alias: aliasOf(context.requestedModel, target),
    selectedKeyId: outcome.answered?.keyId ?? outcome.attempts.at(-1)?.key ?? null,
    conversationId: outcome.answered?.conversationId ?? null,
    complexityTier: context.complexity?.tier ?? null,
    complexityScore: context.complexity?.score ?? null,
    ...callerColumns(context.caller),
    routingRuleId: context.routingRule?.id ?? null,
    routingRuleName: context.routingRule?.name ?? null,
    routingEngine: context.routingEngine ?? null,
    status: failed ? "error" : "success",
    statusCode: outcome.status,
    errorType: outcome.error?.errorType ?? null,
    errorMessage: outcome.error?.message ?? null,
    stopReason: outcome.summary.finishReason ?? null,
    toolCallNames: outcome.summary.toolCallNames,
    cacheHitType: outcome.cacheHit ?? null,
    guardrails: context.guardrails ?? null,
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: totalTokensOf(usage),
    cost: outcome.cost ?? null,
    latencyMs: outcome.latencyMs,
    timeToFirstTokenMs: outcome.summary.timeToFirstTokenMs ?? null,
    stream: context.stream,
    sessionId: context.sessionId ?? null,
    region,
    internalCaller: context.internalCaller ?? null,
    metadata: context.metadata,
    attempts: outcome.attempts,
    requestContent: contentLogging ? loggedBodyJson(context.body, Number(context.headers.get("content-length"))) : null,
    responseContent: contentLogging ? outcome.summary.content || null : null,
  };
}
