import { encodeSSE } from "../../../http/sse";
import type { ChatChunk, ChatRequest, ChatResponse, EmbeddingRequest, EmbeddingResponse } from "../../canonical";
import { type SseChunkDecoder, sseChunkStream } from "../sse-chunks";
import type { FormatCodec } from "../types";
import { upstreamStreamFailed } from "../../../upstream/errors";
import { completionOutcome, completionSseDecoder } from "./completion-summary";
import { countResponsesTokensLocally } from "./count-tokens";
import { type ResponseObject, responseOutcome, responsesSseDecoder } from "./responses-summary";
import { speechReader } from "./speech-summary";
import { withToolMediaAsUserTurn } from "./tool-result-media";
import { asksForStreamUsage, isUsageOnly, usageChunkStripper, withStreamUsage } from "./stream-usage";

type ChatStreamEvent = Partial<ChatChunk> & { error?: { message?: string } };
type ToolCallDelta = NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>[number];

/** Gives each call of a choice without an index (Gemini's OpenAI-compatible endpoint) one: a new id is the next call; no id continues the last. */
function toolCallIndexer() {
  const byChoice = new Map<number, { ids: Map<string, number>; last: number }>();
  return (choice: number, call: ToolCallDelta) => {
    let calls = byChoice.get(choice);
    if (!calls) byChoice.set(choice, (calls = { ids: new Map(), last: 0 }));
    if (call.id) {
      calls.last = calls.ids.get(call.id) ?? calls.ids.size;
      calls.ids.set(call.id, calls.last);
    }
    call.index = calls.last;
  };
}

/**
 * OpenAI says why a model declined in `refusal`, beside no content; every other format says it
 * as the text of a turn that ends for refusal, which is how the canonical response carries it.
 */
function withRefusalsAsText(response: ChatResponse): ChatResponse {
  if (!response.choices?.some((choice) => choice.message?.refusal && !choice.message.content)) return response;
  const choices = response.choices.map((choice) =>
    choice.message.refusal && !choice.message.content ? { ...choice, message: { ...choice.message, content: choice.message.refusal }, finish_reason: "refusal" as const } : choice,
  );
  return { ...response, choices };
}

/**
 * OpenAI's SSE: `data: <chunk>` events closed by `data: [DONE]`. OpenAI-compatible servers end a
 * failing stream with `{"error": {...}}`; some finish with a choice that has no `delta`, or
 * stream tool calls without their index. A refusal streams as text, and ends the turn for refusal.
 */
function chatSseDecoder(): SseChunkDecoder {
  const indexCall = toolCallIndexer();
  const refused = new Set<number>();
  const chunkOf = (event: ChatStreamEvent): ChatChunk => {
    if (event.error) throw upstreamStreamFailed(event.error.message ?? "the upstream stream reported an error");
    if (!event.choices) event.choices = [];
    for (const choice of event.choices) {
      const delta = (choice.delta ??= {});
      for (const call of delta.tool_calls ?? []) if (call.index === undefined) indexCall(choice.index, call);
      if (delta.refusal) {
        delta.content = (delta.content ?? "") + delta.refusal;
        refused.add(choice.index);
      }
      if (choice.finish_reason === "stop" && refused.has(choice.index)) choice.finish_reason = "refusal";
    }
    return event as ChatChunk;
  };
  return {
    event: (message) => (message.data === "[DONE]" ? [] : [chunkOf(JSON.parse(message.data) as ChatStreamEvent)]),
    end: () => [],
  };
}

/**
 * Canonical chunks as OpenAI's stream: usage only for a client that asked for it, and then as
 * OpenAI sends it, in a chunk of its own with no choices (another format's stream may carry it on
 * its last choice's chunk).
 */
function encodeChatStream(clientBody: Record<string, unknown>): ReadableWritablePair<Uint8Array, ChatChunk> {
  const withUsage = asksForStreamUsage(clientBody);
  return new TransformStream<ChatChunk, Uint8Array>({
    transform: (chunk, controller) => {
      if (isUsageOnly(chunk)) {
        if (withUsage) controller.enqueue(encodeSSE(chunk));
        return;
      }
      const { usage, ...choices } = chunk;
      controller.enqueue(encodeSSE(usage ? choices : chunk));
      if (usage && withUsage) controller.enqueue(encodeSSE({ ...choices, choices: [], usage }));
    },
    flush: (controller) => controller.enqueue(encodeSSE("[DONE]")),
  });
}

/** OpenAI's base64 encoding of an embedding: its float32 values, little-endian. */
const withBase64Embeddings = (response: EmbeddingResponse) => ({
  ...response,
  data: response.data.map((row) => ({ ...row, embedding: Buffer.from(new Float32Array(row.embedding).buffer).toString("base64") })),
});

/**
 * A reply written for an OpenAI client with the fields OpenAI's API reference marks required and
 * other formats have no word for: `logprobs` per choice and the message's `refusal`, null.
 */
const withRequiredChatFields = (response: ChatResponse): ChatResponse => ({
  ...response,
  choices: response.choices.map((choice) => ({ ...choice, message: { ...choice.message, refusal: choice.message.refusal ?? null }, logprobs: choice.logprobs ?? null })),
});

/** The canonical shapes are OpenAI's, so this codec is the identity plus streaming usage and required fields. */
export const openAIFormat: FormatCodec = {
  format: "openai",
  streamContentType: "text/event-stream",
  streamUsage: { asked: asksForStreamUsage, ask: withStreamUsage, strip: usageChunkStripper },
  countTokensLocally: countResponsesTokensLocally,
  replies: {
    responses: { sseDecoder: responsesSseDecoder, summarize: (body) => responseOutcome(body as ResponseObject) },
    text_completion: { sseDecoder: completionSseDecoder, summarize: completionOutcome },
    speech: speechReader,
  },
  chat: {
    decodeRequest: (body) => body as unknown as ChatRequest,
    // Usage is asked for on every translated stream so the client's own format can report it.
    encodeRequest: (request) => {
      const sent = withToolMediaAsUserTurn(request);
      return sent.stream ? withStreamUsage(sent) : { ...sent };
    },
    decodeResponse: (body) => withRefusalsAsText(body as ChatResponse),
    encodeResponse: withRequiredChatFields,
    decodeStream: () => sseChunkStream(chatSseDecoder()),
    sseDecoder: chatSseDecoder,
    encodeStream: encodeChatStream,
    // The openai SDKs raise a stream event carrying `error`; the gateway's error body has one.
    encodeStreamError: (error) => encodeSSE(error.toBody()),
  },
  embedding: {
    decodeRequest: (body) => body as unknown as EmbeddingRequest,
    encodeRequest: (request) => ({ ...request }),
    decodeResponse: (body) => body as EmbeddingResponse,
    encodeResponse: (response, request) => (request.encoding_format === "base64" ? withBase64Embeddings(response) : response),
  },
};
