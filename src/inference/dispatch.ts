import { badRequest, GatewayError, type RoutingInfo } from "../http/errors";
import { type AttemptOutcome, breakerModelOf, effectiveHealth } from "../provider-registry/key-breakers";
import { conversationIdOf } from "./conversation-id";
import { type KeyNeed, keyMeets } from "../provider-registry/key-selection";
import { effectiveNetwork, type RuntimeKey, type RuntimeProvider } from "../provider-registry/runtime";
import type { ProviderStore } from "../provider-registry/store";
import { retryDelayMs, sleep } from "./backoff";
import { callsForChoices, oneChoiceEach } from "./choice-fan-out";
import type { ModelRef } from "./model-ref";
import { hasOneShape, isProviderObjectOperation, type Operation, REQUEST_TYPE, usesBatchKeys, type WireFormat } from "../upstream/operations";
import type { UpstreamCall as ProviderCall, UpstreamSuccess, UpstreamTarget } from "../upstream/adapter";
import { withoutStreamOptions } from "./formats/openai/stream-usage";
import { translateRequest, upstreamOperationOf } from "./translate";
import type { DroppedTool } from "./hosted-tools";
import { isStreamReply, readReplyBody, type ReadBody } from "./reply-body";
import { isRetryable, rotatesKey, unreadableReply } from "../upstream/errors";
import { keyUnresolved, unsetKeyVariable } from "../provider-registry/unresolved-keys";
import { authorized, exchange, exchangeChoices, guarded, type OwnExchange } from "./upstream-exchange";
import type { UpstreamReply } from "../upstream/fetch";
import type { OutboundPolicy } from "../outbound/host-check";
import type { Attempt } from "../db/schema/types";

export interface DispatchInput {
  operation: Operation;
  /** The format the client wrote `body` in; each target gets it in its own format. */
  format: WireFormat;
  /** The client's body, gateway-only fields removed; the model is rewritten per target. */
  body: Record<string, unknown>;
  /** Client headers a same-format upstream may need (`anthropic-beta`, for instance). */
  clientHeaders: Headers;
  stream: boolean;
  /** The primary target first, then the fallbacks in order. */
  targets: ModelRef[];
  /** `x-gw-api-key-id`: used on whichever target's provider owns that key. */
  pinnedKeyId?: string;
  /** Per provider, the only keys that may be used (a virtual key's `key_ids`); a provider not listed may use all of its keys. */
  allowedKeyIds?: Readonly<Record<string, readonly string[]>>;
  /** The conversation a hook already named (a virtual key's session budgets), so affinity need not name it again. */
  conversationId?: string;
  /** The sub-path of an extended endpoint, for passthrough calls. */
  endpoint?: string;
  signal: AbortSignal;
  /** A model's known output limit (the model catalogue's), which a translated request's output cap is lowered to. */
  outputLimit?: (provider: RuntimeProvider, model: string) => number | undefined;
  /** Set when an attached operation makes the upstream calls itself (batches and files). */
  ownExchange?: OwnExchange;
}

/** The reply of the attempt that succeeded, with what the client's answer needs of it. */
export type Dispatched = Answered &
  (
    | (Extract<UpstreamReply, { body: string }> & {
        /** The body as read once on arrival, for its translation and its summary. */
        read: ReadBody;
      })
    | (Extract<UpstreamReply, { stream: ReadableStream<Uint8Array> }> & {
        /** The provider's `stream_idle_timeout_in_seconds`, in effect. */
        streamIdleTimeoutSeconds: number;
      })
  );

interface Answered {
  target: ModelRef;
  /** The format the reply is written in: the answering provider's. */
  format: WireFormat;
  /** What the provider was asked: the client's operation, or chat for a Responses call to a provider without that API. */
  operation: Operation;
  keyId?: string;
  /** The conversation the request belongs to, when its provider keeps conversations on one key. */
  conversationId?: string;
  isFallback: boolean;
  attempts: Attempt[];
  clampedMaxTokens?: ClampedMaxTokens;
  /** Hosted tools of the client's request the answering provider could not run. */
  droppedTools?: DroppedTool[];
}

/** Where one attempt goes, with the key's secret; a key whose `env.NAME` variable is not set cannot make it. */
function upstreamTarget(provider: RuntimeProvider, key: RuntimeKey | undefined, model: string, input: Pick<DispatchInput, "clientHeaders" | "endpoint">): UpstreamTarget | GatewayError {
  const config = key?.config;
  const secret = config && provider.readEnv(config.value ?? "");
  // Only an empty secret can be an unset variable: the common case costs no second look.
  const unset = key && secret === "" ? unsetKeyVariable(key) : undefined;
  if (unset) return keyUnresolved(provider.name, key!, unset);
  return {
    baseUrl: provider.baseUrl,
    network: provider.network,
    clientHeaders: input.clientHeaders,
    endpoint: input.endpoint,
    key: key && config ? { id: key.id, secret: secret!, config } : undefined,
    model: config?.aliases?.[model] ?? config?.vllm_key_config?.model_name ?? model,
    readEnv: provider.readEnv,
    outbound: provider.outbound,
  };
}

/** The provider's keys a request may not use: those outside its virtual key's `key_ids`. */
function keysOutside(provider: RuntimeProvider, allowedKeyIds: DispatchInput["allowedKeyIds"]): Set<string> {
  const allowed = allowedKeyIds?.[provider.name];
  return allowed ? new Set(provider.keys.filter((key) => !allowed.includes(key.id)).map((key) => key.id)) : new Set();
}

/** The key a request pins, when it is the provider's and the request may use it. */
const pinnedKeyOf = (provider: RuntimeProvider, pinnedKeyId: string | undefined, excluded: ReadonlySet<string>) =>
  provider.keys.find((key) => key.id === pinnedKeyId && !excluded.has(key.id));

const unusablePin = (key: RuntimeKey, model: string) => badRequest(`key '${key.id}' is disabled or does not allow model '${model}'`, "x-gw-api-key-id", "caller_model_not_allowed");

const noEligibleKey = (provider: RuntimeProvider, need: KeyNeed) =>
  need.batchApi
    ? badRequest(`no enabled key of provider '${provider.name}' is marked use_for_batch_api`, "provider", "caller_no_batch_key")
    : badRequest(`no enabled key of provider '${provider.name}' allows model '${need.model}'`, "model", "caller_model_not_allowed");

/** Providers seen refusing the `stream_options` the gateway adds to ask for usage: they are not asked again. */
const refusingStreamOptions = new WeakSet<RuntimeProvider>();

const refusedStreamOptions = (error: GatewayError) => (error.status === 400 || error.status === 422) && error.message.includes("stream_options");

/**
 * Per provider, the models whose Responses endpoint turned out missing while their chat answered
 * (a vLLM or Ollama too old for it, an Azure api-version before it): their Responses calls are
 * sent as chats from then on. Per model, because one model missing there says nothing of the rest.
 * Kept by the provider's name and address, so that the provider store reloading its providers
 * (any change of a provider or key, on any node) forgets nothing, and a new address starts afresh.
 */
const lackingResponsesApi = new Map<string, Set<string>>();

const serverOf = (provider: RuntimeProvider) => `${provider.name} ${provider.baseUrl}`;

function markLackingResponsesApi(provider: RuntimeProvider, model: string) {
  const server = serverOf(provider);
  lackingResponsesApi.set(server, (lackingResponsesApi.get(server) ?? new Set<string>()).add(model));
}

/** Whether the provider runs a Responses call for `model` itself, rather than as a chat through the bridge. */
export const answersResponsesItself = (provider: RuntimeProvider, model: string) =>
  (provider.adapter.formatFor?.(model) ?? provider.adapter.format) === "openai" && provider.adapter.operations.has("responses") && !lackingResponsesApi.get(serverOf(provider))?.has(model);

/** How a server without a route answers one (FastAPI's 404, Go's 404 or 405, a proxy's 501). */
const missingEndpoint = (error: GatewayError) => error.status === 404 || error.status === 405 || error.status === 501;

/** A Responses call to a server without that API that cannot run as a chat: the translation's refusal, saying what the server answered. */
const unbridgeable = (provider: string, missing: GatewayError, refusal: GatewayError) =>
  badRequest(`provider '${provider}' has no Responses API (its /responses answered ${missing.status}) and this call cannot run as a chat: ${refusal.message}`, refusal.param, refusal.errorType.startsWith("caller_") ? (refusal.errorType as `caller_${string}`) : undefined);

/** What one provider is sent for the client's call: the operation it is asked and the body in its format. */
interface UpstreamCall {
  operation: Operation;
  body: Record<string, unknown>;
  /** The gateway added `stream_options` to ask for usage on the client's behalf. */
  asksForUsage: boolean;
  clampedMaxTokens?: ClampedMaxTokens;
  droppedTools?: DroppedTool[];
}

/** The output cap a translated request asked for, and the target model's known limit it was lowered to. */
export interface ClampedMaxTokens {
  requested: number;
  limit: number;
}

function upstreamCall(provider: RuntimeProvider, input: DispatchInput, format: WireFormat, model: string, operation: Operation): UpstreamCall | GatewayError {
  const wasTranslated = format !== input.format || operation !== input.operation;
  const outputLimit = wasTranslated ? input.outputLimit?.(provider, model) : undefined;
  const translated = guarded(() => translateRequest(input.operation, operation, input.format, format, input.body, input.stream, outputLimit));
  if (translated instanceof GatewayError) return translated;
  const body = wasTranslated && provider.adapter.translatedBody ? provider.adapter.translatedBody(operation, translated.body, model) : translated.body;
  const asksForUsage = input.stream && format === "openai" && "stream_options" in body && !(input.format === "openai" && "stream_options" in input.body);
  const clampedMaxTokens = translated.clampedFrom === undefined ? undefined : { requested: translated.clampedFrom, limit: outputLimit! };
  return { operation, body, asksForUsage, clampedMaxTokens, droppedTools: translated.dropped };
}

/** The body to send: without the usage request to a server known to refuse it. */
const sendable = (call: UpstreamCall, provider: RuntimeProvider) => (call.asksForUsage && refusingStreamOptions.has(provider) ? withoutStreamOptions(call.body) : call.body);

/** One target: key selection, retries with backoff on 5xx, key rotation on 429/401/403. */
async function attemptTarget(store: ProviderStore, input: DispatchInput, target: ModelRef, isFallback: boolean, attempts: Attempt[]): Promise<Dispatched | GatewayError> {
  const provider = store.require(target.provider);
  const format = hasOneShape(input.operation) ? input.format : (provider.adapter.formatFor?.(target.model) ?? provider.adapter.format);
  const offersResponses = input.operation === "responses" && answersResponsesItself(provider, target.model);
  const operation = upstreamOperationOf(input.operation, format, offersResponses);
  if (!provider.adapter.operations.has(operation)) {
    return badRequest(`provider '${provider.name}' does not offer ${REQUEST_TYPE[input.operation]}`, "model", "caller_unsupported_operation");
  }
  const network = effectiveNetwork(provider.network);
  const choices = callsForChoices(input, format);
  if (choices instanceof GatewayError) return choices;
  let call = upstreamCall(provider, choices > 1 ? oneChoiceEach(input) : input, format, target.model, operation);
  if (call instanceof GatewayError) return call;
  // The gateway asks every OpenAI stream for usage; a server that refuses the field gets the request without it.
  let sent = sendable(call, provider);
  const excluded = keysOutside(provider, input.allowedKeyIds);
  let retries = 0;
  let lastError: GatewayError | undefined;
  const pinned = pinnedKeyOf(provider, input.pinnedKeyId, excluded);
  // 5xx and transport failures retry the key that failed; 429/401/403 move to another one.
  let retryKey: RuntimeKey | undefined;
  const need: KeyNeed = { model: target.model, batchApi: usesBatchKeys(input.operation), anyModel: isProviderObjectOperation(input.operation) };
  const health = store.health;
  const breakerModel = breakerModelOf(need);
  const conversation = effectiveHealth(provider.network).health.conversation_affinity ? (input.conversationId ?? conversationIdOf(input.clientHeaders, input.body, (id) => store.conversations.conversationOfResponse(id))) : undefined;
  const conversationKey = conversation === undefined ? undefined : store.conversations.keyOf(provider.name, conversation);
  for (;;) {
    // A key whose breaker opened while the request retried it is left for the others.
    if (retryKey && !pinned && !health.admits(provider, retryKey.id, breakerModel)) {
      excluded.add(retryKey.id);
      retryKey = undefined;
    }
    const picked = pinned ?? retryKey ?? health.pick(provider, need, excluded, conversationKey);
    if (pinned && !keyMeets(pinned, need)) return unusablePin(pinned, target.model);
    // Every key that could serve is open: no attempt, straight to the fallbacks.
    const refused = picked instanceof GatewayError ? picked : provider.keys.length === 0 ? health.refusesKeyless(provider, breakerModel) : undefined;
    if (refused) {
      if (lastError) return lastError;
      attempts.push({ provider: provider.name, model: target.model, status: refused.status, error_type: refused.errorType, is_fallback: isFallback });
      return refused;
    }
    const key = picked as RuntimeKey | undefined;
    if (!key && (provider.keys.length > 0 || !provider.adapter.keyOptional)) return lastError ?? noEligibleKey(provider, need);
    const upstream = upstreamTarget(provider, key, target.model, input);
    if (upstream instanceof GatewayError) {
      // Another key of the provider may still serve the request; the error stands when none does.
      attempts.push({ provider: provider.name, model: target.model, key: key?.id, status: upstream.status, error_type: upstream.errorType, is_fallback: isFallback });
      lastError = upstream;
      if (!key || pinned) return upstream;
      excluded.add(key.id);
      continue;
    }
    const options = { provider: provider.name, stream: input.stream, timeoutSeconds: network.default_request_timeout_in_seconds, signal: input.signal, ownExchange: input.ownExchange };
    const underway = health.begin(provider, key?.id, breakerModel);
    let reply: Awaited<ReturnType<typeof exchangeOn>>;
    try {
      reply = await exchangeOn(provider, call.operation, upstream, sent, options, choices, format);
    } catch (error) {
      health.end(underway, NEUTRAL);
      throw error;
    }
    if (reply instanceof GatewayError) {
      health.end(underway, NEUTRAL);
      return reply;
    }
    const attempt: Attempt = { provider: provider.name, model: target.model, key: key?.id, is_fallback: isFallback };
    attempts.push(attempt);
    // Several choices joined are an OpenAI reply, whatever the upstream's format.
    const replyFormat = choices > 1 ? "openai" : format;
    const answered = reply.ok ? answeredReply(reply, call.operation, replyFormat, network.stream_idle_timeout_in_seconds) : undefined;
    health.end(underway, answered ? SUCCEEDED : outcomeOf(reply.ok ? unreadableReply(provider.name, replyFormat) : reply.error, input.signal));
    if (answered) {
      if (call.operation !== operation) markLackingResponsesApi(provider, target.model);
      if (conversation !== undefined && key) store.conversations.answeredOn(provider.name, conversation, key.id, responseIdOf(call.operation, answered));
      return { ...answered, target, format: replyFormat, operation: call.operation, keyId: key?.id, conversationId: conversation, isFallback, attempts, clampedMaxTokens: call.clampedMaxTokens, droppedTools: call.droppedTools };
    }
    // A 2xx whose body is not the format's reply failed as a 5xx would: retried, then the fallbacks.
    const error = reply.ok ? unreadableReply(provider.name, replyFormat) : reply.error;
    attempt.status = error.status;
    attempt.error_type = error.errorType;
    lastError = error;
    if (input.signal.aborted) return error;
    if (call.asksForUsage && sent === call.body && refusedStreamOptions(error)) {
      refusingStreamOptions.add(provider);
      sent = withoutStreamOptions(call.body);
      retryKey = key;
      continue;
    }
    // A server without the Responses API gets the call again as a chat, on the same key.
    if (call.operation === "responses" && missingEndpoint(error)) {
      const bridged = upstreamCall(provider, input, format, target.model, "chat");
      // What cannot run as a chat says why, rather than the server's 404 that clients retry.
      if (bridged instanceof GatewayError) return unbridgeable(provider.name, error, bridged);
      call = bridged;
      sent = sendable(call, provider);
      retryKey = key;
      continue;
    }
    if (rotatesKey(error) && key && !pinned) {
      excluded.add(key.id);
      continue;
    }
    if (!isRetryable(error) || retries >= network.max_retries) return error;
    retryKey = key;
    await sleep(retryDelayMs(retries++, network.retry_backoff_initial, network.retry_backoff_max), input.signal);
  }
}

function exchangeOn(provider: RuntimeProvider, operation: Operation, upstream: UpstreamTarget, sent: Record<string, unknown>, options: Parameters<typeof exchange>[4], choices: number, format: WireFormat) {
  return choices > 1 ? exchangeChoices(provider.adapter, operation, upstream, sent, options, choices, format) : exchange(provider.adapter, operation, upstream, sent, options);
}

const NEUTRAL: AttemptOutcome = { kind: "neutral" };
const SUCCEEDED: AttemptOutcome = { kind: "success" };

/**
 * What a failed attempt says of the key: rate limits and connections that failed count against
 * the key, 404s and malformed replies against the key for that model only, 5xx and timeouts
 * against both; the caller's other 4xx (or the caller leaving) do not count.
 */
function outcomeOf(error: GatewayError, signal: AbortSignal): AttemptOutcome {
  if (signal.aborted) return NEUTRAL;
  if (error.status === 429) return { kind: "failure", scope: "key", retryAfterMs: error.extra.retry_after_ms, rateLimited: true };
  if (error.errorType === "provider_unreachable") return { kind: "failure", scope: "key" };
  if (error.errorType === "provider_not_found" || error.errorType === "provider_bad_response") return { kind: "failure", scope: "model" };
  return error.status >= 500 || error.errorType === "provider_timeout" ? { kind: "failure", scope: "key_and_model" } : NEUTRAL;
}

/** The id of a Responses reply read whole (a stream's is not looked for). */
function responseIdOf(operation: Operation, answered: { read: ReadBody } | { stream: unknown }): string | undefined {
  const id = operation === "responses" && "read" in answered ? (answered.read.json as { id?: unknown } | undefined)?.id : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * A successful reply as the client's answer takes it: a body read once, a stream with how long it
 * may be silent; undefined when it is not the format's reply (a stream that came as a page or a
 * JSON body is let go).
 */
function answeredReply(reply: UpstreamSuccess, operation: Operation, format: WireFormat, streamIdleTimeoutSeconds: number) {
  if ("stream" in reply) {
    if (!isStreamReply(operation, reply.headers)) {
      reply.stream.cancel().catch(() => undefined);
      return undefined;
    }
    return { ...reply, streamIdleTimeoutSeconds };
  }
  const read = readReplyBody(operation, format, reply.body);
  return read && { ...reply, read };
}

/** A connection to open to one target (a Realtime session): the call the provider's adapter builds, with the key chosen as for any request. */
export interface PreparedConnection {
  call: ProviderCall;
  keyId?: string;
  /** How long the provider may take to open it (its network config's request timeout). */
  timeoutSeconds: number;
  /** The addresses the provider's socket may reach. */
  outbound: OutboundPolicy;
}

/**
 * Chooses the key (`pinnedKeyId` when it is the provider's and allowed, else weighted among those
 * allowed for the model) and builds the call that opens a connection of `operation` to `target`;
 * a GatewayError when none can.
 */
export async function prepareConnection(
  store: ProviderStore,
  operation: Operation,
  target: ModelRef,
  input: Pick<DispatchInput, "body" | "clientHeaders" | "pinnedKeyId" | "allowedKeyIds">,
): Promise<PreparedConnection | GatewayError> {
  const provider = store.require(target.provider);
  if (!provider.adapter.operations.has(operation)) return badRequest(`provider '${provider.name}' does not offer ${REQUEST_TYPE[operation]}`, "model", "caller_unsupported_operation");
  const excluded = keysOutside(provider, input.allowedKeyIds);
  // A connection to an existing call names no model: any enabled key may open it.
  const need: KeyNeed = { model: target.model, anyModel: typeof input.body.call_id === "string" };
  const pinned = pinnedKeyOf(provider, input.pinnedKeyId, excluded);
  if (pinned && !keyMeets(pinned, need)) return unusablePin(pinned, target.model);
  const key = pinned ?? store.health.pick(provider, need, excluded);
  if (key instanceof GatewayError) return key;
  if (!key && (provider.keys.length > 0 || !provider.adapter.keyOptional)) return noEligibleKey(provider, need);
  const upstream = upstreamTarget(provider, key, target.model, input);
  if (upstream instanceof GatewayError) return upstream;
  const built = guarded(() => provider.adapter.buildCall(operation, upstream, input.body, true));
  if (built instanceof GatewayError) return built;
  const call = await authorized(provider.adapter, built, upstream);
  if (call instanceof GatewayError) return call;
  return { call, keyId: key?.id, timeoutSeconds: effectiveNetwork(provider.network).default_request_timeout_in_seconds, outbound: provider.outbound };
}

/** A dispatch's failure with the routing of its attempts. */
export function routedFailure(error: GatewayError, input: DispatchInput, attempts: Attempt[]): GatewayError {
  const primary = input.targets[0]!;
  const last = attempts[attempts.length - 1];
  const routing: RoutingInfo = {
    provider: last?.provider ?? primary.provider,
    model: last?.model ?? primary.model,
    key: last?.key,
    primary_provider: primary.provider,
    primary_model: primary.model,
    requested_provider: primary.provider,
    requested_model: primary.model,
    is_fallback: last?.is_fallback ?? false,
    attempts,
  };
  error.extra = { ...error.extra, provider: primary.provider, model_requested: primary.model, request_type: REQUEST_TYPE[input.operation], routing_info: routing };
  return error;
}

/**
 * Tries the primary target, then each fallback in order. When all fail, the primary's error is
 * the answer; `routedFailure` gives it the `routing_info` listing every attempt (in `attempts`).
 * A call with one target is its attempt, with no async step of its own.
 */
export function dispatch(store: ProviderStore, input: DispatchInput, attempts: Attempt[]): Promise<Dispatched | GatewayError> {
  return input.targets.length === 1 ? attemptTarget(store, input, input.targets[0]!, false, attempts) : dispatchInTurn(store, input, attempts);
}

async function dispatchInTurn(store: ProviderStore, input: DispatchInput, attempts: Attempt[]): Promise<Dispatched | GatewayError> {
  let primaryError: GatewayError | undefined;
  for (let index = 0; index < input.targets.length; index++) {
    const outcome = await attemptTarget(store, input, input.targets[index]!, index > 0, attempts);
    if (!(outcome instanceof GatewayError)) return outcome;
    primaryError ??= outcome;
    if (input.signal.aborted) break;
  }
  return primaryError!;
}
