import { type EventSourceMessage, EventSourceParserStream } from "eventsource-parser/stream";

export type { EventSourceMessage };

/** Bytes of a `text/event-stream` in, one message per event out. */
export function parseSSE(): ReadableWritablePair<EventSourceMessage, Uint8Array> {
  const decoder = new TextDecoderStream();
  return { writable: decoder.writable as WritableStream<Uint8Array>, readable: decoder.readable.pipeThrough(new EventSourceParserStream()) };
}

const encoder = new TextEncoder();

/** One SSE event: `event: <name>` when named, then its data as JSON (or as given when a string). */
export function encodeSSE(data: unknown, event?: string): Uint8Array {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return encoder.encode(event ? `event: ${event}\ndata: ${payload}\n\n` : `data: ${payload}\n\n`);
}
