import { GatewayError } from "../http/errors";
import type { InferenceOutcome, RequestContext } from "../inference/hooks";
import { FORMATS } from "../inference/formats/registry";
import type { PluginHooks } from "../plugins";
import { rewriteText, type Stage, textsOf } from "./body-text";
import { rewriteInput } from "./input-scan";
import type { GuardrailMetrics } from "./metrics";
import type { GuardrailPolicyStore } from "./policy-store";
import { RequestRun } from "./request-run";
import { StreamGuard } from "./stream-guard";
import { readsStreamsOf } from "./stream-slots";

/** The pipeline's `internalCaller` of the model checks' own calls, which guardrails do not check again. */
export const GUARDRAIL_CALLER = "guardrails";

function blockedError(run: RequestRun): GatewayError {
  const { check, stage } = run.blockedBy!;
  const message = `the ${stage === "input" ? "request" : "reply"} was blocked by guardrail '${check.guardrail}' (check '${check.name}')`;
  return new GatewayError({ status: stage === "input" ? 400 : 422, errorType: "policy_guardrail_blocked", message, extra: { guardrail: check.guardrail, check: check.name } });
}

const isJson = (response: Response) => response.headers.get("content-type")?.includes("json") ?? false;
const isEventStream = (response: Response) => response.headers.get("content-type")?.includes("text/event-stream") ?? false;

/**
 * The `guardrails` built-in plugin: `admit` checks (and may redact or block) the request,
 * `transformResponse` the reply (whole or as it streams), `settle` leaves the verdicts on the
 * context for the request log and counts them.
 */
export class GuardrailHooks implements PluginHooks {
  private readonly runs = new WeakMap<RequestContext, RequestRun>();

  constructor(
    private readonly policies: GuardrailPolicyStore,
    private readonly metrics: GuardrailMetrics,
  ) {}

  admit(context: RequestContext): Promise<void> | void {
    if (context.internalCaller === GUARDRAIL_CALLER) return;
    const applied = this.policies.appliedTo(context);
    if (!applied) return;
    const run = new RequestRun(applied);
    this.runs.set(context, run);
    context.body = rewriteInput(context.body, run);
    if (run.blockedBy) throw blockedError(run);
    if (applied.verdicts.input.length > 0) return this.judge(run, context, "input", textsOf(context.body, "input").join("\n"));
  }

  transformResponse(context: RequestContext, response: Response): Promise<Response> | Response {
    const run = this.runs.get(context);
    if (!run || !response.ok || !response.body) return response;
    const { output } = run.applied.matches;
    const restoring = run.applied.restoreRedacted && run.pseudonyms.hasRestorable;
    if (output.length === 0 && run.applied.verdicts.output.length === 0 && !restoring) return response;
    if (context.stream) return isEventStream(response) && readsStreamsOf(context.format) ? this.guardedStream(run, context, response) : response;
    return isJson(response) ? this.guardedReply(run, context, response) : response;
  }

  /**
   * Runs before the request log's settle (built-ins before custom plugins, logging last), so the
   * row it writes records the verdicts, keeps no text an output check redacts or blocks (the
   * summary is the upstream's reply), and shows a reply blocked after the upstream answered as
   * the error the client got.
   */
  settle(context: RequestContext, outcome: InferenceOutcome): void {
    const run = this.runs.get(context);
    if (!run) return;
    if (outcome.summary.content && run.applied.matches.output.length > 0) outcome.summary.content = run.scrub(outcome.summary.content, "output");
    const verdicts = run.verdicts;
    if (verdicts.length === 0) return;
    context.guardrails = verdicts;
    this.metrics.count(verdicts);
    if (run.blockedBy?.stage === "output" && !outcome.error) {
      const error = blockedError(run);
      outcome.error = error;
      outcome.status = error.status;
    }
  }

  private async judge(run: RequestRun, context: RequestContext, stage: Stage, text: string): Promise<void> {
    await run.judge(stage, { text, body: context.body, requestId: context.id });
    if (run.blockedBy) throw blockedError(run);
  }

  private async guardedReply(run: RequestRun, context: RequestContext, response: Response): Promise<Response> {
    const body = await response.text();
    // An empty JSON reply (a realtime call's accept or hangup) carries no text to check.
    if (body === "") return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
    const reply = rewriteText(JSON.parse(body), "output", (text) => run.rewrite(text, "output"));
    if (run.blockedBy) return blockedError(run).toResponse();
    await run.judge("output", { text: textsOf(reply, "output").join("\n"), body: context.body, requestId: context.id });
    if (run.blockedBy) return blockedError(run).toResponse();
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(JSON.stringify(reply), { status: response.status, statusText: response.statusText, headers });
  }

  private guardedStream(run: RequestRun, context: RequestContext, response: Response): Response {
    const encodeError = FORMATS[context.format]?.chat?.encodeStreamError;
    const guard = new StreamGuard(
      run,
      context.format,
      (text) => run.judge("output", { text, body: context.body, requestId: context.id }),
      () => (encodeError ? encodeError(blockedError(run)) : new TextEncoder().encode(`data: ${JSON.stringify(blockedError(run).toBody())}\n\n`)),
    );
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(response.body!.pipeThrough(guard.transform()), { status: response.status, statusText: response.statusText, headers });
  }
}
