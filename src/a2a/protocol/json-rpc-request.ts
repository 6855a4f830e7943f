import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import type { A2ACall } from "./call";
import { type A2AFailure, failureFromJsonRpc } from "./failure";
import type { RpcId } from "./responses";

export type ParsedRpcRequest = { id: RpcId; call: A2ACall } | { id: RpcId; failure: A2AFailure };

const rpcError = (code: number, message: string) => failureFromJsonRpc({ code, message })!;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function idOf(request: Record<string, unknown>): RpcId | undefined {
  const id = request.id ?? null;
  return typeof id === "string" || id === null || (typeof id === "number" && Number.isInteger(id)) ? id : undefined;
}

/** A caller's JSON-RPC 2.0 request body as a call, or the JSON-RPC error to answer it with. */
export function callFromJsonRpc(text: string): ParsedRpcRequest {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return { id: null, failure: rpcError(A2A_ERROR_CODE.PARSE_ERROR, "the request body is not valid JSON") };
  }
  if (!isRecord(request)) return { id: null, failure: rpcError(A2A_ERROR_CODE.INVALID_REQUEST, "a JSON-RPC request must be a JSON object (batches are not supported)") };
  const id = idOf(request);
  if (id === undefined) return { id: null, failure: rpcError(A2A_ERROR_CODE.INVALID_REQUEST, "id must be a string, an integer or null") };
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string" || request.method === "") {
    return { id, failure: rpcError(A2A_ERROR_CODE.INVALID_REQUEST, "a JSON-RPC 2.0 request needs jsonrpc: \"2.0\" and a method") };
  }
  if (request.params !== undefined && !isRecord(request.params)) return { id, failure: rpcError(A2A_ERROR_CODE.INVALID_PARAMS, "params must be an object") };
  return { id, call: { method: request.method, params: request.params ?? {} } };
}
