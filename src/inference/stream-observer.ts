import { createParser } from "eventsource-parser";
import { GatewayError } from "../http/errors";
import type { ChatChunk } from "./canonical";
import { FORMATS } from "./formats/registry";
import type { SseChunkDecoder } from "./formats/sse-chunks";
import type { ByteEdit } from "./formats/types";
import type { Operation, WireFormat } from "../upstream/operations";
import { ChunkAccumulator, type ReplySummary } from "./reply-summary";
import { streamFailure, streamIdleTimedOut } from "../upstream/errors";
import { takeRedaction } from "../upstream/credential-echoes";
import { streamPhases } from "./stream-phases";
import { timerDelay } from "../../actors/runtime/clock";
import type { StreamSoFar } from "./hooks";

/** Reads a stream's bytes as they pass; `end` is called once, after the last byte or when the stream was cut (`failure` when the upstream failed it). */
export interface ByteTap {
  feed(bytes: Uint8Array): void;
  /** What the bytes fed so far brought, where the tap reads them as they pass. */
  sofar?(): StreamSoFar;
  end(truncated: boolean, failure?: GatewayError): void;
}

/** How a relayed upstream stream is held to account: how long it may stay silent, and how its failure reaches the client. */
export interface StreamGuard {
  /** Seconds the upstream may send nothing between chunks before the stream is ended as timed out. */
  idleTimeoutSeconds: number;
  /**
   * The client format's error event, written before the stream closes when the upstream fails
   * it (cut, silent): the client's SDK raises it. Without one the failure errors the stream, for
   * a translation downstream to report in the client's format.
   */
  encodeError?: (error: GatewayError) => Uint8Array;
  /** A running limit (a session's budget): the error it answers ends the stream right after the chunk that crossed it. */
  cutoff?: (sofar: StreamSoFar) => GatewayError | undefined;
}

const settled = Promise.resolve();

/** Bytes a tap may lag behind the client: a stream that keeps arriving faster than it is flushed (a large download) is read along past this, not held whole. */
const MAX_UNREAD_BYTES = 64 * 1024;

/** Ends whatever event a cut stream left open, so the error event that follows parses on its own. */
const EVENT_BOUNDARY = new TextEncoder().encode("\n\n");

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
 * (flushed), so parsing them never delays the client's bytes; the last ones, and the tap's end,
 * before the stream's close is relayed.
 *
 * The `guard` ends a stream whose upstream stays silent too long (one timer per stream, moved on
 * with each read) or breaks off, as the client format's error event where it has one.
 */
export function tapStream(stream: ReadableStream<Uint8Array>, tap: ByteTap, guard: StreamGuard | undefined, edit?: ByteEdit, acceptedAt?: number): ReadableStream<Uint8Array> {
  // An upstream stream losing echoed credentials is read here directly, redacted chunk by chunk as it is read.
  const redaction = takeRedaction(stream);
  const redactor = redaction?.redactor;
  const reader = (redaction?.source ?? stream).getReader();
  const unread: Uint8Array[] = [];
  let unreadBytes = 0;
  let ended = false;
  const phases = streamPhases?.begin(acceptedAt);
  const feedUnread = () => {
    for (const chunk of unread) tap.feed(chunk);
    unread.length = 0;
    unreadBytes = 0;
  };
  const end = (truncated: boolean, failure?: GatewayError) => {
    if (ended) return;
    ended = true;
    feedUnread();
    tap.end(truncated, failure);
    if (phases) streamPhases!.settled(phases);
  };
  // A limit is checked after each chunk, which it then reads at once rather than once flushed.
  const cutoff = guard?.cutoff && tap.sofar ? guard.cutoff : undefined;
  const cutoffNow = (): GatewayError | undefined => {
    if (!cutoff) return undefined;
    feedUnread();
    return cutoff(tap.sofar!());
  };
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      let failure: GatewayError | undefined;
      // Only the upstream's silence counts: a client slow to take the bytes is not it.
      let awaitingUpstream = false;
      const idle =
        guard &&
        setTimeout(() => {
          if (!awaitingUpstream) return idle!.refresh();
          failure = streamIdleTimedOut(guard.idleTimeoutSeconds);
          // The pending read then answers `done`; the upstream connection is let go.
          reader.cancel(failure).catch(() => undefined);
        }, timerDelay(guard.idleTimeoutSeconds * 1000));
      try {
        let next = reader.read();
        for (;;) {
          idle?.refresh();
          awaitingUpstream = true;
          const { done, value } = await next;
          awaitingUpstream = false;
          if (done || failure) break;
          const readAt = phases && streamPhases!.read(phases);
          const bytes = redactor ? redactor.edit(value) : value;
          if (bytes.length > 0) unread.push(bytes);
          unreadBytes += bytes.length;
          const out = edit ? edit.edit(bytes) : bytes;
          const written = out.length > 0 ? controller.write(out) : 1;
          if ((typeof written === "number" ? written : await written) === 0) {
            await reader.cancel();
            return end(true);
          }
          if (phases) streamPhases!.relayed(phases, readAt!);
          const cut = cutoffNow();
          if (cut) {
            failure = cut;
            await controller.flush();
            reader.cancel(cut).catch(() => undefined);
            break;
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
        // A read that failed is the upstream's failure; a write or flush that failed is the client's going.
        if (!awaitingUpstream) {
          controller.close(error as Error);
          return end(true);
        }
        failure ??= streamFailure(error);
      } finally {
        clearTimeout(idle);
      }
      // Ended before the end is relayed: what settles the stream (its log row) is done before the client has it all.
      if (failure) {
        end(true, failure);
        if (guard?.encodeError) {
          controller.write(EVENT_BOUNDARY);
          controller.write(guard.encodeError(failure));
          controller.close();
        } else {
          controller.close(failure);
        }
        return;
      }
      const held = redactor?.flush();
      if (held) {
        unread.push(held);
        const out = edit ? edit.edit(held) : held;
        if (out.length > 0) controller.write(out);
      }
      const rest = edit?.flush();
      if (rest) controller.write(rest);
      end(false);
      controller.close();
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
    sofar: () => ({ usage: accumulator.summary.usage, outputCharacters: accumulator.outputCharacters }),
    end(truncated, failure) {
      try {
        add(decoder.end());
      } catch {}
      onDone(accumulator.finish(truncated, failure));
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
    end(truncated, failure) {
      if (!codec) return onDone(accumulator.finish(truncated, failure));
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
        .then(() => onDone(accumulator.finish(truncated, failure)));
    },
  };
}

/** A tap that only times the stream, for streams that tell nothing else (speech, Anthropic's legacy completions). */
function timingTap(accumulator: ChunkAccumulator, onDone: (summary: ReplySummary) => void): ByteTap {
  return {
    feed: () => accumulator.markFirstByte(performance.now()),
    end: (truncated, failure) => onDone(accumulator.finish(truncated, failure)),
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
export function observeStream(
  operation: Operation,
  format: WireFormat,
  stream: { body: ReadableStream<Uint8Array>; headers: Headers },
  startedAt: number,
  onDone: (summary: ReplySummary) => void,
  /** For an upstream's stream; a reply the gateway itself replays (a cache hit) needs none. */
  guard?: StreamGuard,
  edit?: ByteEdit,
): ReadableStream<Uint8Array> {
  const accumulator = new ChunkAccumulator(startedAt);
  return tapStream(stream.body, tapFor(operation, format, stream.headers, accumulator, onDone), guard, edit, startedAt);
}

const unobserved: ByteTap = { feed() {}, end() {} };

/** The stream guarded (and as `edit` rewrites it), for a request no hook observes. */
export const guardStream = (stream: ReadableStream<Uint8Array>, guard: StreamGuard, edit?: ByteEdit): ReadableStream<Uint8Array> => tapStream(stream, unobserved, guard, edit);
