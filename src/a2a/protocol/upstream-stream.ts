import { InvalidAgentResponseError } from "@a2a-js/sdk/errors";
import { GatewayError } from "../../http/errors";
import { type EventSourceMessage, parseSSE } from "../../http/sse";
import type { StreamItem } from "./call";
import { failureFromA2AError, failureFromGateway, failureFromJsonRpc, failureFromRestBody } from "./failure";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const unreadable = (data: string) => ({ failure: failureFromA2AError(new InvalidAgentResponseError(`the agent sent an event the gateway cannot read: ${data.slice(0, 200)}`)) });

function parsed(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** HTTP+JSON: each data event is a `StreamResponse`; an `error` event carries the REST error envelope. */
export function restStreamItem(message: EventSourceMessage): StreamItem {
  const value = parsed(message.data);
  if (message.event === "error") {
    const failure = failureFromRestBody(500, value);
    return failure ? { failure } : unreadable(message.data);
  }
  return isRecord(value) ? { event: value } : unreadable(message.data);
}

/** JSON-RPC: each data event is a JSON-RPC response whose result is a `StreamResponse`, or whose error ends the stream. */
export function jsonRpcStreamItem(message: EventSourceMessage): StreamItem {
  const value = parsed(message.data);
  if (!isRecord(value)) return unreadable(message.data);
  if ("error" in value) {
    const failure = failureFromJsonRpc(value.error);
    return failure ? { failure } : unreadable(message.data);
  }
  return isRecord(value.result) ? { event: value.result } : unreadable(message.data);
}

const brokenStream = (reason: string) =>
  failureFromGateway(new GatewayError({ status: 502, errorType: "provider_stream_broken", message: `the agent's stream broke off: ${reason}` }));

/**
 * An upstream event stream as items. It ends after the first failure item; a connection that
 * breaks mid-stream becomes a failure item too, so the caller hears about it inside its stream.
 * Stopping the iteration cancels the upstream body.
 */
export async function* upstreamItems(body: ReadableStream<Uint8Array>, itemOf: (message: EventSourceMessage) => StreamItem): AsyncGenerator<StreamItem> {
  const reader = body.pipeThrough(parseSSE()).getReader();
  try {
    while (true) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        yield { failure: brokenStream((error as Error).message) };
        return;
      }
      if (next.done) return;
      const item = itemOf(next.value);
      yield item;
      if ("failure" in item) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
