import { badRequest, type GatewayError } from "../http/errors";
import type { ChatChunk, ChatRequest, TranslatableOperation } from "./canonical";
import { chatRequestOfResponses } from "./formats/openai/responses-request";
import { withoutUnsignedThinking } from "./formats/anthropic/unsigned-thinking";
import { type BridgedResponse, responseOfChat, withoutSealedThinking } from "./formats/openai/responses-reply";
import { encodeResponsesStream, encodeResponsesStreamError } from "./formats/openai/responses-stream";
import { FORMATS } from "./formats/registry";
import { type DroppedTool, withHostedTools } from "./hosted-tools";
import { assertStrictReply } from "./strict-output";
import type { Operation, WireFormat } from "../upstream/operations";
import type { ReadBody } from "./reply-body";
import { streamFailure } from "../upstream/errors";

function codecsFor<O extends TranslatableOperation>(operation: O, from: WireFormat, to: WireFormat) {
  const source = FORMATS[from]?.[operation];
  const target = FORMATS[to]?.[operation];
  if (!source || !target) throw untranslatable(operation, from, to);
  return { source, target };
}

const untranslatable = (operation: Operation, from: WireFormat, to: WireFormat) =>
  badRequest(`a ${from}-format ${operation} request cannot be sent to a ${to}-format provider`, "model", "caller_unsupported_translation");

/**
 * The usage the gateway asks a passed-through stream for on the client's behalf: where the format
 * reports a stream's usage only when asked and the client's `body` did not ask. The client must
 * then not see it (`strip`).
 */
export function usageAskedFor(operation: Operation, format: WireFormat, body: Record<string, unknown>) {
  const usage = operation === "chat" || operation === "text_completion" ? FORMATS[format]?.streamUsage : undefined;
  return usage && !usage.asked(body) ? usage : undefined;
}

/**
 * The body a same-format upstream gets: the client's own, asking for a stream's usage where the
 * format must ask, and without thinking the gateway wrote for or from another provider.
 */
function passedThrough(operation: Operation, format: WireFormat, body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (operation === "responses") return withoutSealedThinking(body);
  const sent = operation === "chat" && format === "anthropic" ? withoutUnsignedThinking(body) : body;
  const usage = stream ? usageAskedFor(operation, format, sent) : undefined;
  return usage ? usage.ask(sent) : sent;
}

/**
 * What the provider is asked: the client's operation, or a chat for a Responses API call to a
 * provider without that API (every format but OpenAI's, and OpenAI-format servers without it).
 */
export const upstreamOperationOf = (operation: Operation, to: WireFormat, offersResponses: boolean): Operation =>
  operation === "responses" && (to !== "openai" || !offersResponses) ? "chat" : operation;

/** A Responses API call the provider answers as a chat. */
const bridged = (operation: Operation, upstreamOperation: Operation) => operation === "responses" && upstreamOperation === "chat";

function chatCodecOf(format: WireFormat, operation: Operation, from: WireFormat) {
  const codec = FORMATS[format]?.chat;
  if (!codec) throw untranslatable(operation, from, format);
  return codec;
}

/** A request as the upstream gets it; `clampedFrom` is the output cap the client asked for when it was lowered to the model's limit. */
export interface TranslatedRequest {
  body: Record<string, unknown>;
  clampedFrom?: number;
  /** Hosted tools the target cannot run, left out. */
  dropped?: DroppedTool[];
}

/** The formats whose requests must carry an output cap (Anthropic's `max_tokens`). */
const CAP_REQUIRED: ReadonlySet<WireFormat> = new Set(["anthropic"]);

/**
 * The canonical request with its output cap no higher than `limit`, the target model's known
 * output limit: the provider would refuse more (Claude Code's 32,000 to a model of 16,384). With
 * no cap asked, the limit goes along for the formats that must send one.
 */
function withinOutputLimit(request: ChatRequest, limit: number | undefined, to: WireFormat): { request: ChatRequest; clampedFrom?: number } {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  if (limit !== undefined && asked === undefined) return { request: CAP_REQUIRED.has(to) ? { ...request, output_limit: limit } : request };
  if (limit === undefined || asked === undefined || asked <= limit) return { request };
  const capped = (value: number | undefined) => (value === undefined ? undefined : Math.min(value, limit));
  return { request: { ...request, max_tokens: capped(request.max_tokens), max_completion_tokens: capped(request.max_completion_tokens) }, clampedFrom: asked };
}

/**
 * The client's body written in the upstream's format, for `upstreamOperation` (see
 * upstreamOperationOf). A translated chat's output cap is lowered to `outputLimit`, the target
 * model's known limit; a body passed through is the client's to answer for.
 */
export function translateRequest(operation: Operation, upstreamOperation: Operation, from: WireFormat, to: WireFormat, body: Record<string, unknown>, stream: boolean, outputLimit?: number): TranslatedRequest {
  if (bridged(operation, upstreamOperation)) {
    const { request, dropped } = withHostedTools({ ...chatRequestOfResponses(body), stream }, to);
    return { ...encodedChat(chatCodecOf(to, operation, from), request, outputLimit, to), ...(dropped ? { dropped } : {}) };
  }
  if (from === to) return { body: passedThrough(operation, to, body, stream) };
  if (operation === "chat") {
    const { source, target } = codecsFor("chat", from, to);
    return encodedChat(target, { ...source.decodeRequest(body), stream }, outputLimit, to);
  }
  if (operation === "embedding") {
    const { source, target } = codecsFor("embedding", from, to);
    return { body: target.encodeRequest(source.decodeRequest(body)) };
  }
  throw untranslatable(operation, from, to);
}

function encodedChat(codec: { encodeRequest(request: ChatRequest): Record<string, unknown> }, request: ChatRequest, outputLimit: number | undefined, to: WireFormat): TranslatedRequest {
  const limited = withinOutputLimit(request, outputLimit, to);
  return { body: codec.encodeRequest(limited.request), clampedFrom: limited.clampedFrom };
}

/** What a translated reply needs from the request that caused it. */
export interface ReplyOrigin {
  /** The answering target's model, for replies whose format does not carry one (Bedrock's). */
  model: string;
  /** The client's body, in the client's format. */
  clientBody: Record<string, unknown>;
  /** Set for a Responses call answered as a chat: the response it becomes (see handle.ts). */
  bridgedResponse?: BridgedResponse;
}

function responseOf(origin: ReplyOrigin): BridgedResponse {
  if (!origin.bridgedResponse) throw new Error("a Responses call answered as a chat needs the response it becomes");
  return origin.bridgedResponse;
}

/** A reply's body: its text, and what was read of it on arrival (see reply-body.ts). */
export type ReplyBody = ReadBody & { text: string };

const jsonOf = (reply: ReplyBody) => reply.json ?? JSON.parse(reply.text);

/** An upstream's JSON reply to `upstreamOperation` written in the client's format. */
export function translateResponse(operation: Operation, upstreamOperation: Operation, from: WireFormat, to: WireFormat, reply: ReplyBody, origin: ReplyOrigin): string {
  if (bridged(operation, upstreamOperation)) {
    const decoded = reply.chat ?? chatCodecOf(from, operation, to).decodeResponse(jsonOf(reply));
    assertStrictReply(decoded, origin.clientBody, from);
    return JSON.stringify(responseOfChat({ ...decoded, model: decoded.model || origin.model }, origin.clientBody, responseOf(origin)));
  }
  if (from === to) return reply.text;
  if (operation === "chat") {
    const { source, target } = codecsFor("chat", from, to);
    const response = reply.chat ?? source.decodeResponse(jsonOf(reply));
    if (to === "openai") assertStrictReply(response, origin.clientBody, from);
    return JSON.stringify(target.encodeResponse({ ...response, model: response.model || origin.model }));
  }
  if (operation === "embedding") {
    const { source, target } = codecsFor("embedding", from, to);
    const response = source.decodeResponse(jsonOf(reply));
    return JSON.stringify(target.encodeResponse({ ...response, model: response.model || origin.model }, target.decodeRequest(origin.clientBody)));
  }
  throw untranslatable(operation, from, to);
}

const withModel = (model: string) =>
  new TransformStream<ChatChunk, ChatChunk>({
    transform: (chunk, controller) => controller.enqueue(chunk.model ? chunk : { ...chunk, model }),
  });

/** An upstream's stream to `upstreamOperation` re-encoded event by event in the format of the client who sent `clientBody`. */
export function translateStream(
  operation: Operation,
  upstreamOperation: Operation,
  from: WireFormat,
  to: WireFormat,
  stream: ReadableStream<Uint8Array>,
  origin: ReplyOrigin,
): ReadableStream<Uint8Array> {
  const { model, clientBody } = origin;
  if (bridged(operation, upstreamOperation)) {
    const answered = stream.pipeThrough(chatCodecOf(from, operation, to).decodeStream()).pipeThrough(withModel(model)).pipeThrough(encodeResponsesStream(clientBody, responseOf(origin)));
    return endingInError(answered, encodeResponsesStreamError);
  }
  if (from === to) return stream;
  const { source, target } = codecsFor("chat", from, to);
  const translated = stream.pipeThrough(source.decodeStream()).pipeThrough(withModel(model)).pipeThrough(target.encodeStream(clientBody));
  return target.encodeStreamError ? endingInError(translated, target.encodeStreamError) : translated;
}

/**
 * The event a stream of `operation` in `format` ends with when it fails midway, where the format
 * has one its SDKs raise: what a passed-through stream the upstream broke or left silent ends with.
 */
export function streamErrorEncoder(operation: Operation, format: WireFormat): ((error: GatewayError) => Uint8Array) | undefined {
  if (operation === "responses") return format === "openai" ? encodeResponsesStreamError : undefined;
  return operation === "chat" || operation === "text_completion" ? FORMATS[format]?.chat?.encodeStreamError : undefined;
}

/**
 * A translated stream that, should it fail midway (the provider's error event, a cut connection,
 * an event that does not decode), ends with its format's error event: the client's SDK raises
 * the error, where a stream that just broke off would reset the connection under it.
 */
function endingInError(stream: ReadableStream<Uint8Array>, encodeError: (error: GatewayError) => Uint8Array): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.enqueue(encodeError(streamFailure(error)));
        controller.close();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
