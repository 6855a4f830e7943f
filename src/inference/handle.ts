import { commaList } from "../http/comma-list";
import { badRequest, GatewayError } from "../http/errors";
import { headerValueOf } from "../http/header-value";
import type { ProviderStore } from "../provider-registry/store";
import type { RuntimeProvider } from "../provider-registry/runtime";
import type { ModelFacts } from "./model-facts";
import type { StoredResponses } from "../responses";
import type { DeferredSettlements } from "./deferred-settlements";
import { type Dispatched, type DispatchInput, dispatch, routedFailure } from "./dispatch";
import type { Attempt } from "../db/schema/types";
import { type BackgroundResponses, responseIdOf } from "./kept-responses/background-runs";
import { FORMATS } from "./formats/registry";
import { droppedToolsHeader } from "./hosted-tools";
import { admitThrough, type HookReply, type InferenceHooks, type InferenceOutcome, type RequestContext, transformThrough } from "./hooks";
import { type ModelRef, resolveModelRef, type ServedModel } from "./model-ref";
import { type BilledUnits, requestUnits } from "./billed-units";
import type { Usage } from "./canonical";
import { isProviderObjectOperation, type Operation, type WireFormat } from "../upstream/operations";
import { answeredThrough, bridgedThrough, keyPinnedByHandler, type OperationHandler, type OperationRun, operationRuns, ownExchangeOf, repliedThrough } from "./operation-handlers";
import type { ObjectKeys } from "./kept-objects/object-keys";
import type { PromptField } from "./mounts/prompt-field";
import { PROVIDER_OBJECT_CALLS } from "../upstream/provider-objects";
import { type ReplySummary, summarizeReply } from "./reply-summary";
import { guardStream, observeStream } from "./stream-observer";
import { type ReplyOrigin, streamErrorEncoder, translateResponse, translateStream, usageAskedFor } from "./translate";
import { unreadableReply } from "../upstream/errors";

/** A reply whose usage is to be priced. */
export interface PricedReply {
  target: ModelRef;
  keyId?: string;
  usage?: Usage;
  units?: BilledUnits;
  context: RequestContext;
}

/** What every mount needs: the providers, and the hooks (governance, logs, ...) around each request. */
export interface Inference {
  providers: ProviderStore;
  hooks: readonly InferenceHooks[];
  /** Where settling waits for the response to leave. */
  settlements: DeferredSettlements;
  /** USD for a reply's usage, computed before the hooks settle so budgets and logs see one figure; undefined when unpriced. */
  price?(reply: PricedReply): number | undefined;
  /** The most output tokens a model writes in one reply, where known: a translated request asking more is lowered to it. */
  outputLimit?: DispatchInput["outputLimit"];
  /** What the price catalogue knows of a model (context window, output limit, list prices), for `/v1/models`. */
  modelFacts?: (provider: RuntimeProvider, model: string) => ModelFacts | undefined;
  /** The responses the gateway keeps, read back on the provider-object routes (kept and continued through `storedResponsesOperation`). */
  responses?: StoredResponses;
  /** Where `background: true` Responses calls to providers without the API run. */
  background?: BackgroundResponses;
  /** The operations that need more than a relay (conversations the gateway keeps, ...), each attached here. */
  operations?: readonly OperationHandler[];
  /** Which key made each object a provider keeps, for providers with several keys. */
  objectKeys?: ObjectKeys;
  /**
   * Which models the caller of `headers` may see in a model listing: its virtual key checked as
   * inference checks it (401 when one is required or invalid), and the models that key may use
   * through the provider keys that serve them.
   */
  modelsVisibleTo?(headers: Headers): (model: ServedModel) => boolean;
  /** Streams kept so that a client that lost one resumes it (`x-gw-resumable`). */
  streams?: KeptStreams;
  /** Renders a `prompt` field of a chat, responses or messages body into it (src/prompts). */
  promptField?: PromptField;
}

/** Streams the gateway reads to their end whoever listens, and keeps for readers to resume. */
export interface KeptStreams {
  /** The call's stream kept, when it asked for that; undefined, without allocating, when it did not. */
  keep(call: InferenceCall, context: RequestContext): KeptStream | undefined;
  /** The stream a request was kept as, for the caller that made it (a background Responses call's, read back by its response id). */
  ofRequest(requestId: string, headers: Headers): Promise<RequestStream | undefined>;
}

/** A kept stream as the request that made it sees it. */
export interface RequestStream {
  state: "upstream_open" | "completed" | "failed" | "cancelled";
  createdAtMs: number;
  error: string | null;
  /** Its events after event `after` (numbered from 1), as SSE, then live until it ends. */
  read(after: number): Promise<Response>;
  /** Cancels its upstream call when still open; the stream as it then stands. */
  cancel(): Promise<RequestStream>;
}

export interface KeptStream {
  /** What the upstream call is sent with in place of the client's signal: a kept stream outlives its client's connection. */
  readonly signal: AbortSignal;
  /** The client's response, its body read by the gateway from now on and followed by the client. */
  reply(response: Response): Promise<Response>;
}

export interface InferenceCall {
  operation: Operation;
  /** The wire format the client speaks on this route. */
  format: WireFormat;
  /** The client's body with gateway-only fields (`fallbacks`) removed. */
  body: Record<string, unknown>;
  /** `provider/model`, or a bare name resolved through the mount's provider or the keys. */
  model: string;
  fallbacks: readonly string[];
  stream: boolean;
  request: Request;
  /** Provider mounts answer bare model names with their own provider. */
  mountProvider?: string;
  /** The sub-path of an extended endpoint (`batches`, ...) a passthrough call goes to. */
  endpoint?: string;
  /** Set for a request the gateway makes on behalf of another (an MCP agent-mode follow-up). */
  parentRequestId?: string;
  /** The session the request belongs to (a Realtime session's responses), in place of `x-gw-session-id`. */
  sessionId?: string;
  /** Set only by in-process callers: the gateway component making the request on the deployment's behalf. */
  internalCaller?: string;
  /** A key the request itself names (a file or batch id records the key that created it); else `x-gw-api-key-id`. */
  pinnedKeyId?: string;
  /** Usage the request alone determines (the text to speak), for replies that report none. */
  usage?: Usage;
  /** For replies that repeat usage billed elsewhere (a kept response read back): whether this one's counts. */
  countsUsage?: () => boolean;
  /** Set only by in-process callers that must name the log row before it exists (the playground answers it in a header). */
  requestId?: string;
  /** Set only by in-process callers: the virtual key the request runs as, in place of one presented in its headers. */
  actingVirtualKeyId?: string;
  /** Metadata the gateway adds to the log row, never sent upstream (a rendered prompt's name and version). */
  metadata?: Record<string, string>;
}

/** Reads `fallbacks` from the body or the `x-gw-fallbacks` header (comma-separated) for formats whose body cannot carry it. */
export function fallbacksOf(body: Record<string, unknown>, headers: Headers): readonly string[] {
  if (Array.isArray(body.fallbacks)) return body.fallbacks as string[];
  return headerFallbacks(headers);
}

const NO_FALLBACKS: readonly string[] = Object.freeze([]);

/** The `x-gw-fallbacks` header's models; one shared empty list for the calls that name none. */
export const headerFallbacks = (headers: Headers): readonly string[] => commaList(headers.get("x-gw-fallbacks") ?? undefined) ?? NO_FALLBACKS;

const METADATA_HEADER = "x-gw-metadata-";

export function metadataOf(headers: Headers, body: Record<string, unknown>): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (body.metadata && typeof body.metadata === "object") {
    for (const [key, value] of Object.entries(body.metadata)) if (typeof value === "string") metadata[key] = value;
  }
  // The record as `this`: no closure made per request.
  headers.forEach(collectMetadataHeader, metadata);
  return metadata;
}

function collectMetadataHeader(this: Record<string, string>, value: string, name: string) {
  if (name.startsWith(METADATA_HEADER)) this[name.slice(METADATA_HEADER.length)] = value;
}

function createContext(call: InferenceCall): RequestContext {
  const headers = call.request.headers;
  return {
    // Time-ordered ids keep the log table's primary-key index append-only.
    id: call.requestId ?? Bun.randomUUIDv7(),
    receivedAt: new Date(),
    startedAt: performance.now(),
    operation: call.operation,
    format: call.format,
    body: call.body,
    stream: call.stream,
    headers,
    targets: [],
    requestedModel: call.model,
    requestedFallbacks: call.fallbacks,
    mountProvider: call.mountProvider,
    metadata: call.metadata ? { ...metadataOf(headers, call.body), ...call.metadata } : metadataOf(headers, call.body),
    sessionId: call.sessionId ?? headers.get("x-gw-session-id") ?? undefined,
    parentRequestId: call.parentRequestId,
    internalCaller: call.internalCaller,
    actingVirtualKeyId: call.actingVirtualKeyId,
    prompt: call.metadata?.prompt,
  };
}

function settleNow(hooks: readonly InferenceHooks[], context: RequestContext, settled: InferenceOutcome) {
  for (const hook of hooks) {
    try {
      hook.settle?.(context, settled);
    } catch (error) {
      console.error(`inference hook '${hook.name}' failed to settle`, error);
    }
  }
}

type Outcome = Omit<InferenceOutcome, "latencyMs">;

/**
 * Settles at the next turn, or at once with `now` (or `settledReply`): before the reply's last
 * byte leaves, so its log row is journaled before the client has the whole answer. An outcome
 * given as a function is worked out then too (a reply's usage read from its body).
 */
function settle({ settlements, hooks }: Pick<Inference, "settlements" | "hooks">, context: RequestContext, outcome: Outcome | (() => Outcome), now = false) {
  const latencyMs = performance.now() - context.startedAt;
  settlements.defer(() => settleNow(hooks, context, { ...(typeof outcome === "function" ? outcome() : outcome), latencyMs }), context);
  if (now) settlements.settleNow(context);
}

/** Refusals thrown through the pipeline, which settles (and so logs) them itself. */
const settledRefusals = new WeakSet<GatewayError>();

/** Whether `error` went through the pipeline: its hooks settled it, the log row is its own. */
export const settledByPipeline = (error: unknown): boolean => error instanceof GatewayError && settledRefusals.has(error);

function settleFailure(settling: Pick<Inference, "settlements" | "hooks">, context: RequestContext, error: GatewayError, observed = true) {
  settledRefusals.add(error);
  if (observed) settle(settling, context, failureOutcome(error));
  else settling.settlements.forget(context);
}

export function failureOutcome(error: GatewayError): Outcome {
  const attempts = (error.extra.routing_info?.attempts ?? []) as Attempt[];
  return { status: error.status, error, attempts, summary: { toolCallNames: [] } };
}

/** Called once the reply (or the stream) is complete, with what summarizes it (read only when it is settled). */
type OnReplied = (summary: () => ReplySummary, result?: Dispatched) => void;

/** The provider's reply headers the client needs too, copied where the provider sent them. */
function keepReplyHeaders(headers: Record<string, string>, reply: Headers, kept: readonly string[] = []): void {
  for (const name of kept) {
    const value = reply.get(name);
    if (value !== null) headers[name] = value;
  }
}

/** Says that the output cap the client asked for was lowered to the target model's known limit: `<asked> -> <limit>`. */
const MAX_TOKENS_CLAMPED = "x-gw-max-tokens-clamped";

/** Names the hosted tools the provider could not run and that were left out, each with why. */
const DROPPED_TOOLS = "x-gw-dropped-tools";
/** The request log's metadata key for the same. */
const DROPPED_TOOLS_NOTE = "gw_dropped_tools";

/** The client's response, in its own format. */
function clientResponse(result: Dispatched, call: InferenceCall, origin: ReplyOrigin, onReplied: OnReplied | undefined, context: Pick<RequestContext, "startedAt" | "streamCutoff">): Response {
  const headers: Record<string, string> = { "x-gw-provider": result.target.provider, "x-gw-model": headerValueOf(result.target.model) };
  const passthrough = result.format === call.format && result.operation === call.operation;
  if (result.clampedMaxTokens) headers[MAX_TOKENS_CLAMPED] = `${result.clampedMaxTokens.requested} -> ${result.clampedMaxTokens.limit}`;
  if (result.droppedTools) headers[DROPPED_TOOLS] = headerValueOf(droppedToolsHeader(result.droppedTools));
  if (isProviderObjectOperation(call.operation)) keepReplyHeaders(headers, result.headers, PROVIDER_OBJECT_CALLS[call.operation].replyHeaders);
  if ("stream" in result) {
    const streamType = FORMATS[call.format]?.streamContentType ?? "text/event-stream";
    headers["content-type"] = passthrough ? (result.headers.get("content-type") ?? streamType) : streamType;
    headers["cache-control"] = "no-cache";
    const edit = passthrough ? usageAskedFor(call.operation, call.format, call.body)?.strip() : undefined;
    // A translated stream's failure reaches the client through the translation, in the client's format.
    const guard = { idleTimeoutSeconds: result.streamIdleTimeoutSeconds, encodeError: passthrough ? streamErrorEncoder(call.operation, call.format) : undefined, cutoff: context.streamCutoff };
    const upstream = onReplied
      ? observeStream(result.operation, result.format, { body: result.stream, headers: result.headers }, context.startedAt, (summary) => onReplied(() => summary, result), guard, edit)
      : guardStream(result.stream, guard, edit);
    return new Response(translateStream(call.operation, result.operation, result.format, call.format, upstream, origin), { status: result.status, headers });
  }
  // Translated first: a reply that does not translate is the provider's failure, and settles as one.
  const body = translatedReply(result, call, origin);
  onReplied?.(() => summarizeReply(result.operation, result.format, result.body, result.read), result);
  headers["content-type"] = passthrough ? (result.headers.get("content-type") ?? "application/json") : "application/json";
  return new Response(body, { status: result.status, headers });
}

function translatedReply(result: Extract<Dispatched, { body: string }>, call: InferenceCall, origin: ReplyOrigin): string {
  try {
    return translateResponse(call.operation, result.operation, result.format, call.format, { text: result.body, ...result.read }, origin);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw unreadableReply(result.target.provider, result.format);
  }
}

/** A pinned key must be one of the targets' providers': it applies to whichever has it. */
export function assertPinnedKeyOfTargets(providers: ProviderStore, targets: readonly ModelRef[], pinnedKeyId: string | null | undefined): void {
  if (pinnedKeyId && !targets.some((target) => providers.get(target.provider)?.keys.some((key) => key.id === pinnedKeyId))) {
    throw badRequest(`x-gw-api-key-id '${pinnedKeyId}' is not a key of the requested providers`, "x-gw-api-key-id", "caller_key_not_found");
  }
}

/** A token count (Anthropic's and Gemini's count_tokens, OpenAI's input_tokens) the target cannot answer in the client's format is estimated by the gateway. */
function countsLocally(inference: Inference, call: InferenceCall, target: ModelRef): boolean {
  if ((call.operation !== "count_tokens" && call.operation !== "input_tokens") || !FORMATS[call.format]?.countTokensLocally) return false;
  const { adapter } = inference.providers.require(target.provider);
  return !adapter.operations.has(call.operation) || (adapter.formatFor?.(target.model) ?? adapter.format) !== call.format;
}

/** What a call sends upstream, once its pinned key and the operation handlers' runs are known. */
interface Asking {
  input: DispatchInput;
  runs: readonly OperationRun[];
  attempts: Attempt[];
}

/**
 * The call to make upstream, or the reply when the gateway answers itself (a token count it
 * estimates). A value on the usual path: waited for only when a handler has to wait.
 */
function ask(inference: Inference, call: InferenceCall, context: RequestContext, onReplied: OnReplied | undefined, signal: AbortSignal): Asking | Promise<Asking | Response> {
  const primary = context.targets[0]!;
  if (countsLocally(inference, call, primary)) return countedLocally(call, primary, onReplied);
  const pinnedKeyId = call.pinnedKeyId ?? context.headers.get("x-gw-api-key-id") ?? keyPinnedByHandler(inference.operations, call, primary);
  if (pinnedKeyId instanceof Promise) return askOncePinned(inference, call, context, signal, pinnedKeyId);
  return askPinned(inference, call, context, signal, pinnedKeyId);
}

async function countedLocally(call: InferenceCall, primary: ModelRef, onReplied: OnReplied | undefined): Promise<Response> {
  const counted = await FORMATS[call.format]!.countTokensLocally!(call.body);
  onReplied?.(() => ({ toolCallNames: [] }));
  return Response.json(counted, { headers: { "x-gw-provider": "gateway", "x-gw-model": headerValueOf(primary.model) } });
}

async function askOncePinned(inference: Inference, call: InferenceCall, context: RequestContext, signal: AbortSignal, pinning: Promise<string | undefined>): Promise<Asking> {
  return askPinned(inference, call, context, signal, await pinning);
}

function askPinned(inference: Inference, call: InferenceCall, context: RequestContext, signal: AbortSignal, pinnedKeyId: string | undefined): Asking | Promise<Asking> {
  assertPinnedKeyOfTargets(inference.providers, context.targets, pinnedKeyId);
  const runs = operationRuns(inference.operations, call, context);
  return runs instanceof Promise ? askOnceRun(inference, call, context, signal, pinnedKeyId, runs) : askWith(inference, call, context, signal, pinnedKeyId, runs);
}

async function askOnceRun(inference: Inference, call: InferenceCall, context: RequestContext, signal: AbortSignal, pinnedKeyId: string | undefined, running: Promise<readonly OperationRun[]>): Promise<Asking> {
  return askWith(inference, call, context, signal, pinnedKeyId, await running);
}

function askWith(inference: Inference, call: InferenceCall, context: RequestContext, signal: AbortSignal, pinnedKeyId: string | undefined, runs: readonly OperationRun[]): Asking {
  const input: DispatchInput = {
    operation: call.operation,
    format: call.format,
    body: context.body,
    clientHeaders: context.headers,
    stream: call.stream,
    targets: context.targets,
    pinnedKeyId,
    allowedKeyIds: context.allowedKeyIds,
    conversationId: context.conversationId,
    endpoint: call.endpoint,
    signal,
    outputLimit: inference.outputLimit,
    ownExchange: runs.length === 0 ? undefined : ownExchangeOf(runs),
  };
  return { input, runs, attempts: [] };
}

/** The upstream's reply in the client's format, through the operation handlers that take part. */
function replyTo(call: InferenceCall, context: RequestContext, { input, runs, attempts }: Asking, result: Dispatched | GatewayError, onReplied: OnReplied | undefined): Response | Promise<Response> {
  if (result instanceof GatewayError) throw routedFailure(result, input, attempts);
  // The request log keeps the same note as the header: which tools the provider never saw, and why.
  if (result.droppedTools) context.metadata[DROPPED_TOOLS_NOTE] = droppedToolsHeader(result.droppedTools);
  if (runs.length > 0) return replyThroughRuns(call, context, runs, result, onReplied);
  return clientResponse(result, call, originOf(call, context, runs, result), onReplied, context);
}

async function replyThroughRuns(call: InferenceCall, context: RequestContext, runs: readonly OperationRun[], result: Dispatched, onReplied: OnReplied | undefined): Promise<Response> {
  const replied = await answeredThrough(runs, result);
  return repliedThrough(runs, clientResponse(replied, call, originOf(call, context, runs, result), onReplied, context));
}

/** What the client's reply is made from: the model that answered and, for a Responses call answered by a chat, the response it stands for. */
function originOf(call: InferenceCall, context: RequestContext, runs: readonly OperationRun[], result: Dispatched): ReplyOrigin {
  const bridgedResponse = call.operation === "responses" && result.operation === "chat" ? bridgedThrough(runs, responseIdOf(call.request, context.id)) : undefined;
  return { model: result.target.model, clientBody: call.body, bridgedResponse };
}

/**
 * A reply's summary as it is settled: what a read of a kept object repeats is not counted again,
 * and what the request alone determines (the text to speak) stands in for what the reply lacks.
 */
function countedSummary(call: InferenceCall, replied: ReplySummary): ReplySummary {
  // Asked only of a reply with something to count: a read may bill once, and the first that can must.
  const repeated = (replied.usage || replied.units) && call.countsUsage?.() === false;
  let summary = repeated ? { ...replied, usage: undefined, units: undefined } : replied;
  if (!summary.usage && call.usage) summary = { ...summary, usage: call.usage };
  const units = summary.units ? undefined : requestUnits(call.operation, call.body);
  return units ? { ...summary, units } : summary;
}

/** The target that answered. A call on a kept object names no model (`*`); its reply may (the model a video was made with). */
const answeredTarget = (target: ModelRef, summary: ReplySummary): ModelRef => (target.model === "*" && summary.units?.model ? { ...target, model: summary.units.model } : target);

/** A hook answered in place of the upstream: the hooks settle once its reply has been read through. */
async function answeredByHook(settling: Pick<Inference, "settlements" | "hooks">, call: InferenceCall, context: RequestContext, { response, cacheHit }: HookReply): Promise<Response> {
  // Nothing went upstream, so nothing was spent.
  const done = (summary: () => ReplySummary, ended = false) => settle(settling, context, () => ({ status: response.status, attempts: [], summary: summary(), cacheHit, cost: 0 }), ended);
  if (call.stream && response.body) return new Response(observeStream(call.operation, call.format, { body: response.body, headers: response.headers }, context.startedAt, (summary) => done(() => summary, true)), response);
  const text = await response.text();
  done(() => summarizeReply(call.operation, call.format, text));
  return new Response(text, response);
}

/** The call's model, then its fallbacks, each resolved to a target (a 400 naming the one that does not resolve). */
function resolveTargets(providers: ProviderStore, call: InferenceCall): ModelRef[] {
  const targets = [resolveModelRef(call.model, providers, "model", call.mountProvider)];
  for (let index = 0; index < call.fallbacks.length; index++) targets.push(resolveModelRef(call.fallbacks[index]!, providers, `fallbacks[${index}]`, call.mountProvider));
  return targets;
}

/** A model no key lists may still be routed by an `admit` hook (a virtual key's providers, a routing rule). */
function resolvedOrNone(providers: ProviderStore, call: InferenceCall): ModelRef[] {
  try {
    return resolveTargets(providers, call);
  } catch (error) {
    if (error instanceof GatewayError) return [];
    throw error;
  }
}

/** Whether any hook settles: a plain loop, as it runs on every request. */
function anySettles(hooks: readonly InferenceHooks[]): boolean {
  for (const hook of hooks) if (hook.settle) return true;
  return false;
}

/** A call admitted by the hooks that its caller carries out itself, then settles once. */
export interface AdmittedCall {
  context: RequestContext;
  settle(outcome: Outcome): void;
}

/**
 * Admits a call that is not one HTTP exchange (a Realtime session, each response in it): its
 * targets resolved and routed, governed and checked by every hook as any request is. A refusal
 * is settled here, then thrown. A hook's answer in its place (a cache hit) does not apply to it.
 */
export async function admitCall(inference: Inference, call: InferenceCall): Promise<AdmittedCall> {
  const settling = { hooks: inference.hooks, settlements: inference.settlements };
  const context = createContext(call);
  inference.settlements.expect(context, call.request.signal);
  try {
    context.targets = resolvedOrNone(inference.providers, call);
    const admitting = admitThrough(inference.hooks, context);
    if (admitting instanceof Promise) await admitting;
    if (context.targets.length === 0) context.targets = resolveTargets(inference.providers, call);
  } catch (error) {
    if (error instanceof GatewayError) settleFailure(settling, context, error);
    else inference.settlements.forget(context);
    throw error;
  }
  return { context, settle: (outcome) => settle(settling, context, outcome) };
}

/**
 * A whole reply (not a stream) is settled before it is handed to the client, once every hook has
 * transformed it: its log row is in the crash journal before the client can have read it.
 */
function settledReply(settlements: DeferredSettlements, context: RequestContext, response: Response): Response {
  settlements.settleNow(context);
  return response;
}

/**
 * Every mount ends here: resolve targets, let the hooks admit the request, dispatch with
 * fallbacks, answer in the client's format, and settle the hooks once the reply has ended.
 */
export async function handleInference(inference: Inference, call: InferenceCall): Promise<Response> {
  const { hooks, providers, settlements } = inference;
  // The hooks of this moment settle this request, whatever the plugins become meanwhile.
  const settling = { hooks, settlements };
  const context = createContext(call);
  const observed = anySettles(hooks);
  if (observed) settlements.expect(context, call.request.signal);
  try {
    context.targets = resolvedOrNone(providers, call);
    let admission = admitThrough(hooks, context);
    if (admission instanceof Promise) admission = await admission;
    if (context.targets.length === 0) context.targets = resolveTargets(providers, call);
    if (admission.reply) return settledReply(settlements, context, await transformThrough(admission, context, await answeredByHook(settling, call, context, admission.reply)));
    const onReplied: OnReplied | undefined = observed
      ? (replied, result) =>
          settle(settling, context, () => {
            const summary = countedSummary(call, replied());
            const target = result && answeredTarget(result.target, summary);
            return {
              status: result?.status ?? 200,
              error: summary.failure,
              answered: result && target && { target, keyId: result.keyId, conversationId: result.conversationId ?? context.conversationId, isFallback: result.isFallback },
              attempts: result?.attempts ?? [],
              summary,
              cost: target && (summary.usage || summary.units) ? inference.price?.({ target, keyId: result.keyId, usage: summary.usage, units: summary.units, context }) : undefined,
            };
            // A stream has ended here, before its end is relayed: its row goes to the journal first.
          }, result !== undefined && "stream" in result)
      : undefined;
    // Asked once the hooks admitted the call: a refused call keeps nothing.
    const kept = call.stream ? inference.streams?.keep(call, context) : undefined;
    // One async step on the usual path: the upstream's reply.
    let asking: Asking | Response | Promise<Asking | Response> = ask(inference, call, context, onReplied, kept?.signal ?? call.request.signal);
    if (asking instanceof Promise) asking = await asking;
    let answered = asking instanceof Response ? asking : replyTo(call, context, asking, await dispatch(providers, asking.input, asking.attempts), onReplied);
    if (answered instanceof Promise) answered = await answered;
    let response = transformThrough(admission, context, answered);
    if (response instanceof Promise) response = await response;
    return settledReply(settlements, context, kept ? await kept.reply(response) : response);
  } catch (error) {
    if (error instanceof GatewayError) {
      settleFailure(settling, context, error, observed);
      settlements.settleNow(context);
    } else settlements.forget(context);
    throw error;
  }
}
