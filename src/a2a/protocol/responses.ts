import { A2A_CONTENT_TYPE } from "@a2a-js/sdk";
import { GatewayError } from "../../http/errors";
import { encodeSSE } from "../../http/sse";
import { A2A_METHODS, type A2ACall, type A2AOutcome, type StreamItem } from "./call";
import { type A2AFailure, failureFromGateway } from "./failure";

export type RpcId = string | number | null;

function withHeaders(headers: Headers | undefined, extra: Record<string, string>): Headers {
  const merged = new Headers(headers);
  for (const [name, value] of Object.entries(extra)) merged.set(name, value);
  return merged;
}

const retryAfterOf = (failure: A2AFailure): Record<string, string> => (failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) });

/** Anything the stream's producer throws (it should not) still reaches the caller inside the stream. */
const brokenProducer = (error: unknown): StreamItem => {
  console.error("a2a stream failed", error);
  return { failure: failureFromGateway(new GatewayError({ status: 500, errorType: "gateway_internal_error", message: "the gateway failed while streaming" })) };
};

/** Server-sent events, one per item, written as the items come; a caller that leaves stops the upstream. */
function eventStream(items: AsyncIterable<StreamItem>, encode: (item: StreamItem) => Uint8Array, headers: Headers): Response {
  const iterator = items[Symbol.asyncIterator]();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<StreamItem>;
      try {
        next = await iterator.next();
      } catch (error) {
        next = { done: false, value: brokenProducer(error) };
      }
      if (cancelled) return;
      if (next.done) return controller.close();
      controller.enqueue(encode(next.value));
      if ("failure" in next.value) controller.close();
    },
    async cancel() {
      cancelled = true;
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: withHeaders(headers, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" }) });
}

/** The A2A error envelope of spec section 7: `{error:{code, status, message, details}}`. */
export function restFailure(failure: A2AFailure, headers?: Headers): Response {
  return Response.json({ error: failure.rest }, { status: failure.httpStatus, headers: withHeaders(headers, { "content-type": A2A_CONTENT_TYPE, ...retryAfterOf(failure) }) });
}

const restSuccessStatus = (method: string) => (method === A2A_METHODS.createPushConfig ? 201 : method === A2A_METHODS.deletePushConfig ? 204 : 200);

/** An outcome on the HTTP+JSON binding. */
export function restResponse(call: A2ACall, outcome: A2AOutcome): Response {
  if (outcome.kind === "failure") return restFailure(outcome.failure, outcome.headers);
  if (outcome.kind === "stream") {
    return eventStream(outcome.items, (item) => ("event" in item ? encodeSSE(item.event) : encodeSSE({ error: item.failure.rest }, "error")), outcome.headers);
  }
  const status = restSuccessStatus(call.method);
  if (status === 204) return new Response(null, { status, headers: outcome.headers });
  return new Response(JSON.stringify(outcome.value), { status, headers: withHeaders(outcome.headers, { "content-type": A2A_CONTENT_TYPE }) });
}

/** A JSON-RPC error response: A2A errors travel in a 200, the gateway's own refusals keep their status. */
export function jsonRpcFailure(id: RpcId, failure: A2AFailure, headers?: Headers): Response {
  const status = failure.byGateway ? failure.httpStatus : 200;
  return Response.json({ jsonrpc: "2.0", id, error: failure.rpc }, { status, headers: withHeaders(headers, retryAfterOf(failure)) });
}

/** An outcome on the JSON-RPC binding: every event of a stream is a JSON-RPC response to the same id. */
export function jsonRpcResponse(id: RpcId, outcome: A2AOutcome): Response {
  if (outcome.kind === "failure") return jsonRpcFailure(id, outcome.failure, outcome.headers);
  if (outcome.kind === "stream") {
    const encode = (item: StreamItem) => ("event" in item ? encodeSSE({ jsonrpc: "2.0", id, result: item.event }) : encodeSSE({ jsonrpc: "2.0", id, error: item.failure.rpc }, "error"));
    return eventStream(outcome.items, encode, outcome.headers);
  }
  return Response.json({ jsonrpc: "2.0", id, result: outcome.value }, { headers: outcome.headers });
}
