import { GatewayError } from "../http/errors";
import { withUpstreamFileIds } from "../upstream/batch-ids";
import type { SendUpstream } from "../upstream/batch-api";
import { joinedChoiceStreams, joinedChoices } from "./choice-fan-out";
import type { Operation, WireFormat } from "../upstream/operations";
import type { ProviderAdapter, UpstreamCall, UpstreamSuccess, UpstreamTarget } from "../upstream/adapter";
import { sendUpstream, type UpstreamReply } from "../upstream/fetch";

/** What a build step throws: a GatewayError (bad input), or an Error saying how the provider is configured wrongly. */
function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError({ status: 500, errorType: "gateway_provider_misconfigured", message: (error as Error).message });
}

/** Translation and call building fail on bad input (a 400) or on a provider configured wrongly. */
export function guarded<T>(build: () => T): T | GatewayError {
  try {
    return build();
  } catch (error) {
    return asGatewayError(error);
  }
}

/** The call with the gateway's file ids in its JSON body turned back into the provider's. */
function withUpstreamIds(call: UpstreamCall, provider: string): UpstreamCall {
  if (typeof call.body !== "string") return call;
  const body = withUpstreamFileIds(call.body, provider);
  return body === call.body ? call : { ...call, body };
}

/**
 * An operation's own exchange in place of the adapter's one call (batches and files, run through
 * the adapter's `BatchApi`): each call it makes is sent by `send`, authorized with the attempt's key.
 */
export type OwnExchange = (adapter: ProviderAdapter, operation: Operation, call: { provider: string; target: UpstreamTarget; body: Record<string, unknown> }, send: SendUpstream) => Promise<UpstreamReply | GatewayError>;

export interface ExchangeOptions {
  provider: string;
  stream: boolean;
  timeoutSeconds: number;
  signal: AbortSignal;
  /** Set when an attached operation makes the calls itself. */
  ownExchange?: OwnExchange;
}

/** The call with the key's authorization (a signature, a minted token) applied; as it is, without waiting, for adapters with none. */
export function authorized(adapter: ProviderAdapter, call: UpstreamCall, target: UpstreamTarget): UpstreamCall | Promise<UpstreamCall | GatewayError> {
  return adapter.authorizeCall ? adapter.authorizeCall(call, target) : call;
}

/**
 * One call, authorized, sent; without a step of its own when the call needs no authorizing. (The
 * closures of the rarer paths live in helpers of their own: a function that creates one gets a
 * scope allocated on every call, whichever path it takes.)
 */
function sendAuthorized(adapter: ProviderAdapter, target: UpstreamTarget, call: UpstreamCall, stream: boolean, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  const authorizing = authorized(adapter, call, target);
  if (authorizing instanceof Promise) return sendOnceAuthorized(authorizing, target, stream, options);
  return sendUpstream(authorizing, stream, options.timeoutSeconds, options.signal, target);
}

function sendOnceAuthorized(authorizing: Promise<UpstreamCall | GatewayError>, target: UpstreamTarget, stream: boolean, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  return authorizing.then((ready): UpstreamReply | GatewayError | Promise<UpstreamReply> => (ready instanceof GatewayError ? ready : sendUpstream(ready, stream, options.timeoutSeconds, options.signal, target)));
}

/**
 * One attempt of an operation on one key: prepare the body, build, authorize, send, and read the reply into the
 * operation's shape. A GatewayError value means the attempt cannot be made (bad input, a provider
 * configured wrongly) and is not retried; `{ ok: false }` is the upstream's own failure.
 */
export function exchange(adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  if (options.ownExchange) return ownExchanged(options.ownExchange, adapter, operation, target, body, options);
  const preparing = adapter.prepareBody?.(operation, body);
  return preparing ? exchangeOncePrepared(preparing, adapter, operation, target, options) : exchangePrepared(adapter, operation, target, body, options);
}

function ownExchanged(own: OwnExchange, adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  const send = (call: UpstreamCall, sent: { stream?: boolean } = {}) => sendAuthorized(adapter, target, call, sent.stream ?? false, options);
  return own(adapter, operation, { provider: options.provider, target, body }, send).catch(asGatewayError);
}

async function exchangeOncePrepared(preparing: Promise<Record<string, unknown>>, adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  return exchangePrepared(adapter, operation, target, await preparing, options);
}

/** Build, authorize, send and shape; a plain call (no async step, no closure) on the usual path. */
function exchangePrepared(adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, prepared: Record<string, unknown>, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  let built: UpstreamCall;
  try {
    built = withUpstreamIds(adapter.buildCall(operation, target, prepared, options.stream), options.provider);
  } catch (error) {
    return Promise.resolve(asGatewayError(error));
  }
  const copies = adapter.fanOut ? fanOutCopies(adapter.fanOut, operation, prepared, target.model) : 1;
  if (copies instanceof GatewayError) return Promise.resolve(copies);
  if (copies > 1) return fannedOut(adapter, operation, target, built, copies, options);
  const sending = sendAuthorized(adapter, target, built, options.stream, options);
  return adapter.readReply ? shapedOnceSent(sending, adapter, operation, target) : sending;
}

const fanOutCopies = (fanOut: NonNullable<ProviderAdapter["fanOut"]>, operation: Operation, body: Record<string, unknown>, model: string) => guarded(() => fanOut.copies(operation, body, model));

async function shapedOnceSent(sending: Promise<UpstreamReply | GatewayError>, adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget): Promise<UpstreamReply | GatewayError> {
  return shaped(adapter, operation, target, await sending);
}

/** A successful reply read into the operation's shape by the adapter, where it has its own. */
function shaped(adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, reply: UpstreamReply | GatewayError): UpstreamReply | GatewayError | Promise<UpstreamReply | GatewayError> {
  if (reply instanceof GatewayError || !reply.ok || !adapter.readReply) return reply;
  return adapter.readReply(operation, reply, target);
}

/** `copies` of one exchange at once: every reply, or the first failure, which fails them all as one call's would (the others' streams are let go). */
async function everyReply(copies: number, send: () => Promise<UpstreamReply | GatewayError>): Promise<UpstreamSuccess[] | UpstreamReply | GatewayError> {
  const replies = await Promise.all(Array.from({ length: copies }, send));
  const failure = replies.find((reply) => reply instanceof GatewayError || !reply.ok);
  if (!failure) return replies as UpstreamSuccess[];
  for (const reply of replies) if (!(reply instanceof GatewayError) && reply.ok && "stream" in reply) void reply.stream.cancel().catch(() => undefined);
  return failure;
}

/** The same call sent `copies` times, the replies joined by the adapter. */
async function fannedOut(adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, call: UpstreamCall, copies: number, options: ExchangeOptions): Promise<UpstreamReply | GatewayError> {
  const replies = await everyReply(copies, async () => shaped(adapter, operation, target, await sendAuthorized(adapter, target, call, options.stream, options)));
  return Array.isArray(replies) ? adapter.fanOut!.join(operation, replies) : replies;
}

/** A chat asking for `choices` of an upstream that answers one a call (see choice-fan-out.ts): as many exchanges, joined into one OpenAI reply or stream. */
export async function exchangeChoices(adapter: ProviderAdapter, operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, options: ExchangeOptions, choices: number, format: WireFormat): Promise<UpstreamReply | GatewayError> {
  const replies = await everyReply(choices, () => exchange(adapter, operation, target, body, options));
  if (!Array.isArray(replies)) return replies;
  return options.stream ? joinedChoiceStreams(format, replies, target.model) : joinedChoices(format, replies, target.model);
}
