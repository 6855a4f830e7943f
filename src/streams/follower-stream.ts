import type { ResumableStreamRow } from "../db/schema";
import { GatewayError } from "../http/errors";
import { encodeSSE } from "../http/sse";
import { streamErrorEncoder } from "../inference/translate";
import type { Operation, WireFormat } from "../upstream/operations";
import type { StreamFollower } from "./live-stream";
import { withId } from "./sse-events";

/** What a reader gets: each event, then the end (with why it failed, when it did); answers how to stop. */
export type Subscribe = (follower: StreamFollower) => () => void;

/** Why a stream ended without completing, as the error event of the format it was sent in (the client's SDK raises it). */
function failureEvent(row: Pick<ResumableStreamRow, "operation" | "format">, message: string): Uint8Array {
  const failure = new GatewayError({ status: 502, errorType: "gateway_stream_failed", message });
  const encode = streamErrorEncoder(row.operation as Operation, row.format as WireFormat);
  return encode ? encode(failure) : encodeSSE(failure.toBody(), "error");
}

/** Why a reader was dropped; the events stay kept, so it can resume after the last one it read. */
export const fellBehind = (maxLagBytes: number) =>
  `this reader fell more than ${maxLagBytes} bytes behind the stream and was dropped; resume after the id of the last event it read`;

/**
 * A reader's SSE body: each event with its `id:`, then, for a stream that failed, its format's
 * error event. What the reader has not read yet is bounded by `maxLagBytes`: a reader that does
 * not read (its connection's buffers full) is ended with an error event saying so, instead of
 * its queue growing with every event, past the stream's own size bound too.
 */
export function followerStream(subscribe: Subscribe, row: Pick<ResumableStreamRow, "operation" | "format">, maxLagBytes: number): ReadableStream<Uint8Array> {
  let stop: () => void = () => undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const end = (error?: string) => {
          if (closed) return;
          closed = true;
          if (error) controller.enqueue(failureEvent(row, error));
          controller.close();
        };
        stop = subscribe({
          event(seq, event) {
            if (closed) return;
            // Judged before the event is queued: one event larger than the bound still reaches a reader that keeps up.
            if (controller.desiredSize! >= 0) return controller.enqueue(withId(seq, event));
            end(fellBehind(maxLagBytes));
            stop();
          },
          end,
        });
        // Dropped while the events it asked for were replayed, before `stop` was known.
        if (closed) stop();
      },
      cancel() {
        closed = true;
        stop();
      },
    },
    { highWaterMark: maxLagBytes, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}
