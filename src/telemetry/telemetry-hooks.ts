import type { InferenceOutcome, RequestContext } from "../inference/hooks";
import type { ModelRef } from "../inference/model-ref";
import { REQUEST_TYPE } from "../upstream/operations";
import type { PluginHooks } from "../plugins";
import type { InferenceMetrics } from "./gateway-metrics";
import { requestSpan } from "./request-span";
import type { Traces } from "./traces";

/** The target a request is counted under: the one that answered, else the primary asked for. */
function targetOf(context: RequestContext, outcome: InferenceOutcome): ModelRef {
  return outcome.answered?.target ?? context.targets[0] ?? { provider: "", model: context.requestedModel };
}

function record(metrics: InferenceMetrics, context: RequestContext, outcome: InferenceOutcome, upstreamSeconds: number | undefined): void {
  const { provider, model } = targetOf(context, outcome);
  const failed = outcome.error !== undefined || outcome.status >= 400;
  const requestType = REQUEST_TYPE[context.operation];
  // Label values in the order each metric declares its labels: no label object a call.
  metrics.requests.incValues(1, provider, model, requestType, failed ? "error" : "success");
  if (failed) metrics.errors.incValues(1, provider, model, outcome.error?.errorType ?? "unclassified");
  metrics.latency.observeValues(outcome.latencyMs / 1000, provider, model, requestType);
  if (upstreamSeconds !== undefined) metrics.upstreamLatency.observeValues(upstreamSeconds, provider, model);
  const usage = outcome.summary.usage;
  // A cached reply repeats the usage it was stored with, but no provider processed it again.
  if (usage && !outcome.cacheHit) {
    metrics.tokens.incValues(usage.prompt_tokens, provider, model, "input");
    metrics.tokens.incValues(usage.completion_tokens, provider, model, "output");
  }
  if (outcome.cost) metrics.cost.incValues(outcome.cost, provider, model);
  if (outcome.cacheHit) metrics.cacheHits.inc({ type: outcome.cacheHit });
}

/**
 * The telemetry plugin: metrics for every settled request and, when OTLP is configured, a span
 * (with the prompt and reply only when `captureContent`).
 * It admits last, so the time from its `admit` to the reply's end is the upstream's share.
 */
export function telemetryHooks(metrics: InferenceMetrics, traces: Traces | undefined): PluginHooks {
  const admittedAt = new WeakMap<RequestContext, number>();
  return {
    admit(context) {
      admittedAt.set(context, performance.now());
      traces?.begin(context);
    },
    settle(context, outcome) {
      const admitted = admittedAt.get(context);
      const wentUpstream = admitted !== undefined && outcome.attempts.length > 0;
      // Settling may run a moment after the reply ended, so the time is taken from the outcome.
      record(metrics, context, outcome, wentUpstream ? (context.startedAt + outcome.latencyMs - admitted) / 1000 : undefined);
      if (traces) traces.exporter.export(requestSpan(context, outcome, targetOf(context, outcome), traces.end(context), traces.captureContent));
    },
  };
}
