import type { ChatChunk } from "../../canonical";
import type { ByteEdit } from "../types";

/**
 * OpenAI streams report usage only when `stream_options.include_usage` asks for it, in an extra
 * chunk with no choices before `[DONE]`. The gateway always asks, so that every stream is priced
 * from the provider's own count; a client that did not ask never sees that chunk.
 */
export const asksForStreamUsage = (body: Record<string, unknown>): boolean => (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;

export function withStreamUsage<Body extends object>(body: Body): Body & { stream_options: { include_usage: true } } {
  const options = (body as { stream_options?: unknown }).stream_options;
  return { ...body, stream_options: { ...(options && typeof options === "object" ? options : {}), include_usage: true } };
}

/**
 * The body without `stream_options`, for servers that refuse the field: Mistral answers 422
 * (and reports a stream's usage unasked), Azure before api-version 2024-09-01 answers 400.
 */
export function withoutStreamOptions(body: Record<string, unknown>): Record<string, unknown> {
  if (!("stream_options" in body)) return body;
  const { stream_options: _refused, ...rest } = body;
  return rest;
}

/** The usage-only chunk: what a client that did not ask for usage must not receive. */
export const isUsageOnly = (chunk: Pick<ChatChunk, "choices" | "usage">): boolean => Boolean(chunk.usage) && Array.isArray(chunk.choices) && chunk.choices.length === 0;

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where the next `[]` starts at or after `from`, or -1: every usage-only chunk has an empty array, almost no other chunk does. */
function emptyArrayAt(data: Uint8Array, from: number): number {
  for (let at = data.indexOf(OPEN_BRACKET, from); at >= 0; at = data.indexOf(OPEN_BRACKET, at + 1)) {
    if (data[at + 1] === CLOSE_BRACKET) return at;
  }
  return -1;
}
const text = new TextDecoder();

const lineStart = (data: Uint8Array, at: number) => Math.max(data.lastIndexOf(LF, at), data.lastIndexOf(CR, at)) + 1;

/** Where the line holding `at` ends, its terminator included; `data` ends with a terminator. */
function lineEnd(data: Uint8Array, at: number): number {
  const lf = data.indexOf(LF, at);
  const cr = data.indexOf(CR, at);
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf + 1;
  return data[cr + 1] === LF ? cr + 2 : cr + 1;
}

function isUsageOnlyLine(line: Uint8Array): boolean {
  const decoded = text.decode(line);
  if (!decoded.startsWith("data:")) return false;
  try {
    return isUsageOnly(JSON.parse(decoded.slice(5)) as ChatChunk);
  } catch {
    return false;
  }
}

/** `complete` (whole lines, an empty array at `first`) without its usage-only `data:` lines; whether its last line was one. */
function withoutUsageLines(complete: Uint8Array, first: number): { kept: Uint8Array; droppedLast: boolean } {
  const parts: Uint8Array[] = [];
  let from = 0;
  let droppedLast = false;
  for (let at = first; at >= 0; at = emptyArrayAt(complete, at)) {
    const start = lineStart(complete, at);
    const end = lineEnd(complete, at);
    if (isUsageOnlyLine(complete.subarray(start, end))) {
      parts.push(complete.subarray(from, start));
      from = end;
      droppedLast = end === complete.length;
    }
    at = end;
  }
  if (from === 0) return { kept: complete, droppedLast };
  parts.push(complete.subarray(from));
  return { kept: Buffer.concat(parts), droppedLast };
}

/**
 * Takes the usage-only event's `data:` line out of an OpenAI SSE stream, leaving every other byte
 * as it came. The blank line after it remains, an event with no data, which SSE clients skip.
 * A line still incomplete is held until its end arrives: no client can act on half an event.
 */
export function usageChunkStripper(): ByteEdit {
  let held: Uint8Array | undefined;
  // A dropped line that ended in CR at a chunk's end: a LF opening the next chunk is the rest of its CRLF.
  let droppedBeforeLF = false;
  return {
    edit(chunk) {
      let data = held ? Buffer.concat([held, chunk]) : chunk;
      if (droppedBeforeLF && data[0] === LF) data = data.subarray(1);
      droppedBeforeLF = false;
      const end = Math.max(data.lastIndexOf(LF), data.lastIndexOf(CR)) + 1;
      held = end < data.length ? data.slice(end) : undefined;
      if (end === 0) return EMPTY;
      const complete = end < data.length ? data.subarray(0, end) : data;
      // Most chunks hold no empty array, and pass without a copy or an allocation.
      const first = emptyArrayAt(complete, 0);
      if (first < 0) return complete;
      const { kept, droppedLast } = withoutUsageLines(complete, first);
      droppedBeforeLF = droppedLast && data[end - 1] === CR;
      return kept;
    },
    flush: () => held,
  };
}
