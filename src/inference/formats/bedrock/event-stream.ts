import { EventStreamCodec, type Message } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

/** AWS's binary event stream (`application/vnd.amazon.eventstream`): length-prefixed, CRC-checked messages with typed headers. */
export const EVENT_STREAM_CONTENT_TYPE = "application/vnd.amazon.eventstream";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export interface StreamEvent {
  /** `event` for data; `exception` or `error` when the upstream failed mid-stream. */
  messageType: string;
  /** The event's name (`messageStart`, `chunk`...) or the exception's (`throttlingException`...). */
  name: string;
  payload: Record<string, unknown>;
}

const stringHeader = (value: string) => ({ type: "string" as const, value });

export function encodeEvent(name: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ":event-type": stringHeader(name), ":content-type": stringHeader("application/json"), ":message-type": stringHeader("event") },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

export function encodeException(name: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ":exception-type": stringHeader(name), ":content-type": stringHeader("application/json"), ":message-type": stringHeader("exception") },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

function toStreamEvent({ headers, body }: Message): StreamEvent {
  const header = (name: string) => {
    const value = headers[name]?.value;
    return typeof value === "string" ? value : undefined;
  };
  const messageType = header(":message-type") ?? "event";
  if (messageType === "error") return { messageType, name: header(":error-code") ?? "error", payload: { message: header(":error-message") } };
  const text = toUtf8(body);
  const payload = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { messageType, name: header(":event-type") ?? header(":exception-type") ?? "", payload };
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array {
  if (head.length === 0) return tail;
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}

/** Bytes in, whole decoded messages out: each message starts with its total length (big-endian), wherever the network split it. */
export function decodeEvents(): TransformStream<Uint8Array, StreamEvent> {
  let pending: Uint8Array = new Uint8Array(0);
  return new TransformStream({
    transform(bytes, controller) {
      pending = concat(pending, bytes);
      while (pending.length >= 4) {
        const length = new DataView(pending.buffer, pending.byteOffset, 4).getUint32(0);
        if (pending.length < length) break;
        controller.enqueue(toStreamEvent(codec.decode(pending.subarray(0, length))));
        pending = pending.subarray(length);
      }
    },
    flush(controller) {
      if (pending.length > 0) controller.error(new Error("event stream ended inside a message"));
    },
  });
}
