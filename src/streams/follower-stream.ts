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

/** A reader's SSE body: each event with its `id:`, then, for a stream that failed, its format's error event. */
export function followerStream(subscribe: Subscribe, row: Pick<ResumableStreamRow, "operation" | "format">): ReadableStream<Uint8Array> {
  let stop: () => void = () => undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop = subscribe({
        event(seq, event) {
          if (!closed) controller.enqueue(withId(seq, event));
        },
        end(error) {
          if (closed) return;
          closed = true;
          if (error) controller.enqueue(failureEvent(row, error));
          controller.close();
        },
      });
    },
    cancel() {
      closed = true;
      stop();
    },
  });
}
