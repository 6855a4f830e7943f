import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage, JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerSdk } from "../../sdk";
import { callerMeta, type RequestId, type StatelessRequest } from "./wire";

export type RpcOutcome = { jsonrpc: "2.0"; id: RequestId } & ({ result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } });

const CANCELLED = -32800;

const isOutcome = (message: JSONRPCMessage): message is RpcOutcome & JSONRPCMessage => "id" in message && ("result" in message || "error" in message);
const isNotification = (message: JSONRPCMessage): message is JSONRPCNotification => "method" in message && !("id" in message);

/**
 * One stateless request answered by the gateway's SDK server, in memory: the same handlers a
 * session has, with the request's `_meta` minus the protocol's own keys (an upstream of an earlier
 * revision must not see them) and without `inputResponses` and `requestState`. Notifications the
 * handler sends reach `onNotification`; an abort of `signal` cancels the request as
 * `notifications/cancelled` would.
 */
export async function dispatchInMemory(sdk: McpServerSdk, server: Server, request: StatelessRequest, onNotification: (notification: JSONRPCNotification) => void, signal: AbortSignal): Promise<RpcOutcome> {
  const { _meta: meta, inputResponses: _answers, requestState: _state, ...params } = request.params;
  const kept = callerMeta(meta);
  const message = { jsonrpc: "2.0" as const, id: request.id, method: request.method, params: { ...params, ...(kept ? { _meta: kept } : {}) } };
  const [caller, own] = sdk.InMemoryTransport.createLinkedPair();
  let settle: (outcome: RpcOutcome) => void = () => {};
  // A cancelled request gets no answer from the SDK: nobody is left to read one either.
  const cancel = () => {
    void caller.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: request.id, reason: "the caller closed the stream" } }).catch(() => undefined);
    settle({ jsonrpc: "2.0", id: request.id, error: { code: CANCELLED, message: "the caller closed the stream" } });
  };
  await server.connect(own);
  try {
    return await new Promise<RpcOutcome>((resolve) => {
      settle = resolve;
      caller.onmessage = (received) => {
        if (isOutcome(received) && received.id === request.id) resolve(received);
        else if (isNotification(received)) onNotification(received);
      };
      if (signal.aborted) cancel();
      else signal.addEventListener("abort", cancel, { once: true });
      void caller.start().then(() => caller.send(message));
    });
  } finally {
    // The signal may outlive the request (a held call's): a later abort has nothing left to cancel.
    signal.removeEventListener("abort", cancel);
    await server.close().catch(() => undefined);
  }
}
