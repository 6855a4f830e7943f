import { badRequest } from "../http/errors";
import type { ProviderStore } from "../provider-registry/store";
import { type Dispatched, dispatch } from "./dispatch";
import { FORMATS } from "./formats/registry";
import { resolveModelRef } from "./model-ref";
import type { Operation, WireFormat } from "./operations";
import { translateResponse, translateStream } from "./translate";

export interface InferenceCall {
  operation: Operation;
  /** The wire format the client speaks on this route. */
  format: WireFormat;
  /** The client's body with gateway-only fields (`fallbacks`) removed. */
  body: Record<string, unknown>;
  /** `provider/model`, or a bare name resolved through the mount's provider or the keys. */
  model: string;
  fallbacks: readonly string[];
  stream: boolean;
  request: Request;
  /** Provider mounts answer bare model names with their own provider. */
  mountProvider?: string;
}

/** Reads `fallbacks` from the body or the `x-gw-fallbacks` header (comma-separated) for formats whose body cannot carry it. */
export function fallbacksOf(body: Record<string, unknown>, headers: Headers): string[] {
  if (Array.isArray(body.fallbacks)) return body.fallbacks as string[];
  return (headers.get("x-gw-fallbacks") ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
}

function clientResponse(result: Dispatched, clientFormat: WireFormat, operation: Operation): Response {
  const headers: Record<string, string> = { "x-gw-provider": result.target.provider, "x-gw-model": result.target.model };
  const passthrough = result.format === clientFormat;
  if ("stream" in result) {
    const streamType = FORMATS[clientFormat]?.streamContentType ?? "text/event-stream";
    headers["content-type"] = passthrough ? (result.headers.get("content-type") ?? streamType) : streamType;
    headers["cache-control"] = "no-cache";
    return new Response(translateStream(result.format, clientFormat, result.stream), { status: result.status, headers });
  }
  headers["content-type"] = passthrough ? (result.headers.get("content-type") ?? "application/json") : "application/json";
  return new Response(translateResponse(operation, result.format, clientFormat, result.body), { status: result.status, headers });
}

/** Every mount ends here: resolve targets, dispatch with fallbacks, answer in the client's format. */
export async function handleInference(store: ProviderStore, call: InferenceCall): Promise<Response> {
  const resolve = (raw: string, param: string) => resolveModelRef(raw, store, param, call.mountProvider);
  const targets = [resolve(call.model, "model"), ...call.fallbacks.map((fallback, index) => resolve(fallback, `fallbacks[${index}]`))];
  const headers = call.request.headers;
  const pinnedKeyId = headers.get("x-gw-api-key-id") ?? undefined;
  if (pinnedKeyId && !targets.some((target) => store.get(target.provider)?.keys.some((key) => key.id === pinnedKeyId))) {
    throw badRequest(`x-gw-api-key-id '${pinnedKeyId}' is not a key of the requested providers`, "x-gw-api-key-id", "caller_key_not_found");
  }
  const result = await dispatch(store, {
    operation: call.operation,
    format: call.format,
    body: call.body,
    clientHeaders: headers,
    stream: call.stream,
    targets,
    pinnedKeyId,
    signal: call.request.signal,
  });
  return clientResponse(result, call.format, call.operation);
}
