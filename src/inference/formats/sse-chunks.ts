import { type EventSourceMessage, parseSSE } from "../../http/sse";
import type { ChatChunk } from "../canonical";

/**
 * A stream decoder of an SSE format, one event at a time, synchronously: what a stream observer
 * runs as bytes pass, without a web-stream pipeline per request. `end` yields what only the
 * stream's end can tell (Gemini's usage follows its last event).
 */
export interface SseChunkDecoder {
  event(message: EventSourceMessage): ChatChunk[];
  end(): ChatChunk[];
}

/** The same decoder as a stream of canonical chunks, for translating a stream to another format. */
export function sseChunkStream(decoder: SseChunkDecoder): ReadableWritablePair<ChatChunk, Uint8Array> {
  const parser = parseSSE();
  const toChunks = new TransformStream<EventSourceMessage, ChatChunk>({
    transform(message, controller) {
      for (const chunk of decoder.event(message)) controller.enqueue(chunk);
    },
    flush(controller) {
      for (const chunk of decoder.end()) controller.enqueue(chunk);
    },
  });
  return { writable: parser.writable, readable: parser.readable.pipeThrough(toChunks) };
}
