import type { GatewayError } from "../../http/errors";
import type { ChatChunk, ChatRequest, ChatResponse, EmbeddingRequest, EmbeddingResponse } from "../canonical";
import type { Operation, WireFormat } from "../../upstream/operations";
import type { ReplySummary } from "../reply-summary";
import type { SseChunkDecoder } from "./sse-chunks";

/** Rewrites a passing byte stream; `flush` returns what it still holds when the stream ends. */
export interface ByteEdit {
  edit(bytes: Uint8Array): Uint8Array;
  flush(): Uint8Array | undefined;
}

/** A format whose streams report usage only when the request asks (OpenAI's `stream_options`). */
export interface StreamUsage {
  asked(body: Record<string, unknown>): boolean;
  /** The body asking for usage. */
  ask(body: Record<string, unknown>): Record<string, unknown>;
  /** Takes the usage the client did not ask for back out of the stream's bytes. */
  strip(): ByteEdit;
}

/** Chat in one wire format, both ways: a client speaking it, or an upstream speaking it. */
export interface ChatCodec {
  decodeRequest(body: Record<string, unknown>): ChatRequest;
  encodeRequest(request: ChatRequest): Record<string, unknown>;
  decodeResponse(body: unknown): ChatResponse;
  encodeResponse(response: ChatResponse): unknown;
  /** Upstream stream bytes in this format, as canonical chunks. */
  decodeStream(): ReadableWritablePair<ChatChunk, Uint8Array>;
  /** For SSE formats: the same decoding one event at a time, synchronously (see sse-chunks.ts). */
  sseDecoder?(): SseChunkDecoder;
  /** Canonical chunks, as stream bytes in this format for the client who sent `clientBody`. */
  encodeStream(clientBody: Record<string, unknown>): ReadableWritablePair<Uint8Array, ChatChunk>;
  /** The event this format's streams end with when they fail midway, which its SDKs raise as an error. */
  encodeStreamError?(error: GatewayError): Uint8Array;
  /** The API answers one choice a call (it has no `n`): several are asked for in as many calls (choice-fan-out.ts). */
  readonly answersOneChoice?: true;
}

export interface EmbeddingCodec {
  decodeRequest(body: Record<string, unknown>): EmbeddingRequest;
  encodeRequest(request: EmbeddingRequest): Record<string, unknown>;
  decodeResponse(body: unknown): EmbeddingResponse;
  /** `request` is the client's own request, for choices it made about the reply (encoding). */
  encodeResponse(response: EmbeddingResponse, request: EmbeddingRequest): unknown;
}

/** How replies of an operation other than chat are read for logs and budgets: a stream event by event, a whole body at once. */
export interface ReplyReader {
  /** A decoder of the stream, or none when a stream of this content type tells nothing (speech as bytes). */
  sseDecoder(contentType: string | null): SseChunkDecoder | undefined;
  summarize(body: unknown): Pick<ReplySummary, "usage" | "finishReason" | "toolCallNames" | "content">;
}

/**
 * A wire format. Where client and upstream speak the same one, bodies pass through untouched;
 * otherwise they are translated through the canonical shapes with these codecs.
 */
export interface FormatCodec {
  readonly format: WireFormat;
  /** Content type of this format's streams (`text/event-stream`, or Bedrock's binary event stream). */
  readonly streamContentType: string;
  readonly chat?: ChatCodec;
  readonly embedding?: EmbeddingCodec;
  /** Set when this format's chat and text-completion streams carry usage only if asked: the gateway asks on every one. */
  readonly streamUsage?: StreamUsage;
  /** Readers of the replies of this format's other operations that carry usage (OpenAI's Responses API, text completions). */
  readonly replies?: Partial<Record<Operation, ReplyReader>>;
  /** Answers this format's token-count request by estimation, when the target cannot count it. */
  countTokensLocally?(body: Record<string, unknown>): Promise<unknown>;
}
