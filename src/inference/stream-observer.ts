import { createParser } from "eventsource-parser";
import { GatewayError } from "../http/errors";
import type { ChatChunk } from "./canonical";
import { FORMATS } from "./formats/registry";
import type { SseChunkDecoder } from "./formats/sse-chunks";
import type { ByteEdit } from "./formats/types";
import type { Operation, WireFormat } from "./operations";
import { ChunkAccumulator, type ReplySummary } from "./reply-summary";

/** Reads a stream's bytes as they pass; `end` is called once, after the last byte or when the stream was cut. */
export interface ByteTap {
  feed(bytes: Uint8Array): void;
  end(truncated: boolean): void;
}

const settled = Promise.resolve();

/** Bytes a tap may lag behind the client: a stream that keeps arriving faster than it is flushed (a large download) is read along past this, not held whole. */
const MAX_UNREAD_BYTES = 64 * 1024;

/**
 * Whether a read has already brought something, without waiting for it: both sides of the race
 * are one reaction away, so an answered read wins. A failed read counts as not ready.
 */
const readyNow = (read: Promise<unknown>): Promise<boolean> => Promise.race([read.then(() => true, () => false), settled.then(() => false)]);

/**
 * The stream, passed to the client unchanged (or as `edit` rewrites it), with `tap` reading the
 * upstream's bytes along. Bun's direct stream writes each chunk straight to the socket, so the
 * tap costs one JS loop rather than a TransformStream per request; a write that answers 0 means
 * the client left, which cancels the upstream read. The tap reads chunks once they have left
 * (flushed, or the stream closed), so parsing them never delays the client's bytes.
 */
export function tapStream(stream: ReadableStream<Uint8Array>, tap: ByteTap, edit?: ByteEdit): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  const unread: Uint8Array[] = [];
  let unreadBytes = 0;
  let ended = false;
  const feedUnread = () => {
    for (const chunk of unread) tap.feed(chunk);
    unread.length = 0;
    unreadBytes = 0;
  };
  const end = (truncated: boolean) => {
    if (ended) return;
    ended = true;
    feedUnread();
    tap.end(truncated);
  };
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      try {
        let next = reader.read();
        for (;;) {
          const { done, value } = await next;
          if (done) break;
          unread.push(value);
          unreadBytes += value.length;
          const out = edit ? edit.edit(value) : value;
          const written = out.length > 0 ? controller.write(out) : 1;
          if ((typeof written === "number" ? written : await written) === 0) {
            await reader.cancel();
            return end(true);
          }
          // Bytes already read behind this chunk (often the stream's end) go out in the same
          // write; a chunk is held back only while more is ready, never while the upstream is silent.
          next = reader.read();
          if (!(await readyNow(next))) {
            await controller.flush();
            feedUnread();
          } else if (unreadBytes >= MAX_UNREAD_BYTES) {
            feedUnread();
          }
        }
      } catch (error) {
        controller.close(error as Error);
        end(true);
        return;
      }
      const rest = edit?.flush();
      if (rest) controller.write(rest);
      controller.close();
      end(false);
    },
    cancel(reason) {
      end(true);
      return reader.cancel(reason);
    },
  });
}

/** SSE formats are decoded synchronously as bytes arrive, with a per-event decoder. */
function sseChatTap(decoder: SseChunkDecoder, accumulator: ChunkAccumulator, onDone: (summary: ReplySummary) => void): ByteTap {
  const text = new TextDecoder();
  const add = (chunks: ChatChunk[]) => {
    for (const chunk of chunks) accumulator.add(chunk);
  };
  const parser = createParser({
    onEvent(event) {
      try {
        add(decoder.event(event));
      } catch (error) {
        // The provider's error event fails the request in its log; a malformed event is the client's to see, and the summary just lacks it.
        if (error instanceof GatewayError) accumulator.summary.failure ??= error;
      }
    },
  });
  return {
    feed: (bytes) => parser.feed(text.decode(bytes, { stream: true })),
    end(truncated) {
      try {
        add(decoder.end());
      } catch {}
      onDone(accumulator.finish(truncated));
    },
  };
}

/** Binary streams (Bedrock's event stream) keep their bytes and are decoded once the stream has ended. */
function deferredChatTap(format: WireFormat, accumulator: ChunkAccumulator, onDone: (summary: ReplySummary) => void): ByteTap {
  const codec = FORMATS[format]?.chat;
  const chunks: Uint8Array[] = [];
  return {
    feed(bytes) {
      if (chunks.length === 0) accumulator.markFirstByte(performance.now());
      chunks.push(bytes);
    },
    end(truncated) {
      if (!codec) return onDone(accumulator.finish(truncated));
      const recorded = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
      recorded
        .pipeThrough(codec.decodeStream())
        .pipeTo(new WritableStream({ write: (chunk) => accumulator.add(chunk) }))
        .catch(() => undefined)
        .then(() => onDone(accumulator.finish(truncated)));
    },
  };
}

/** A tap that only times the stream, for streams that tell nothing else (speech, Anthropic's legacy completions). */
function timingTap(accumulator: ChunkAccumulator, onDone: (summary: ReplySummary) => void): ByteTap {
  return {
    feed: () => accumulator.markFirstByte(performance.now()),
    end: (truncated) => onDone(accumulator.finish(truncated)),
  };
}

function tapFor(operation: Operation, format: WireFormat, headers: Headers, accumulator: ChunkAccumulator, onDone: (summary: ReplySummary) => void): ByteTap {
  const codec = FORMATS[format];
  const sseDecoder = operation === "chat" ? codec?.chat?.sseDecoder?.() : codec?.replies?.[operation]?.sseDecoder(headers.get("content-type"));
  if (sseDecoder) return sseChatTap(sseDecoder, accumulator, onDone);
  return operation === "chat" ? deferredChatTap(format, accumulator, onDone) : timingTap(accumulator, onDone);
}

/**
 * Passes a stream written in `format` through (untouched, or as `edit` rewrites it) and calls
 * `onDone` once with its summary (usage, finish reason, tool names, content) when it ends, is cut,
 * or the client goes away. The stream's `headers` say what it is where its format does not (speech as bytes or events).
 */
export function observeStream(operation: Operation, format: WireFormat, stream: { body: ReadableStream<Uint8Array>; headers: Headers }, startedAt: number, onDone: (summary: ReplySummary) => void, edit?: ByteEdit): ReadableStream<Uint8Array> {
  const accumulator = new ChunkAccumulator(startedAt);
  return tapStream(stream.body, tapFor(operation, format, stream.headers, accumulator, onDone), edit);
}

const unobserved: ByteTap = { feed() {}, end() {} };

/** The stream as `edit` rewrites it, for a request no hook observes. */
export const editStream = (stream: ReadableStream<Uint8Array>, edit: ByteEdit): ReadableStream<Uint8Array> => tapStream(stream, unobserved, edit);
