import { InvalidAgentResponseError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { upstreamFailure, upstreamTimedOut, upstreamUnreachable } from "../../upstream/errors";
import { guardedFetch } from "../../outbound/guarded-fetch";
import type { OutboundPolicy } from "../../outbound/host-check";
import type { UpstreamInterface } from "../agent-card";
import { type A2ACall, type A2AOutcome, isStreamingCall } from "./call";
import { failureFromA2AError, failureFromGateway, failureFromJsonRpc, failureFromRestBody } from "./failure";
import { restRequestFor } from "./rest-routes";
import { jsonRpcStreamItem, restStreamItem, upstreamItems } from "./upstream-stream";
import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from "./version";

export interface UpstreamTarget {
  iface: UpstreamInterface;
  /** The agent's configured headers, resolved. */
  headers: Record<string, string>;
  /** The addresses the agent's interfaces may have: a card names them, so its URLs are checked like any other. */
  outbound: OutboundPolicy;
}

export interface UpstreamCallOptions {
  version: string;
  /** The caller's `A2A-Extensions` header, forwarded as given. */
  extensions?: string;
  /** The caller's request id on JSON-RPC, reused upstream. */
  rpcId?: string | number | null;
  /** Fires when the caller goes away; the upstream call is cancelled with it. */
  signal: AbortSignal;
}

/** Bounds the wait for a reply's headers; a stream may then run as long as the task does. */
const REPLY_TIMEOUT_SECONDS = 300;

interface HttpRequest {
  url: string;
  method: string;
  body?: string;
}

function httpRequestFor(iface: UpstreamInterface, call: A2ACall, rpcId: string | number | null | undefined): HttpRequest | undefined {
  if (iface.binding === "JSONRPC") {
    const params = iface.tenant && call.params.tenant === undefined ? { tenant: iface.tenant, ...call.params } : call.params;
    return { url: iface.url, method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: rpcId ?? crypto.randomUUID(), method: call.method, params }) };
  }
  const rest = restRequestFor(call);
  if (!rest) return undefined;
  const tenant = iface.tenant ? `/${encodeURIComponent(iface.tenant)}` : "";
  const query = rest.query ? `?${rest.query}` : "";
  return { url: `${iface.url.replace(/\/+$/, "")}${tenant}${rest.path}${query}`, method: rest.verb, body: rest.body && JSON.stringify(rest.body) };
}

const invalidReply = (what: string) => failureFromA2AError(new InvalidAgentResponseError(`the agent's reply could not be read: ${what}`));

function parsedJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function passedHeaders(response: Response): Headers {
  const headers = new Headers();
  const extensions = response.headers.get(HTTP_EXTENSION_HEADER);
  if (extensions) headers.set(HTTP_EXTENSION_HEADER, extensions);
  return headers;
}

/** A non-2xx reply, in the binding's error shape when it has one. */
async function failedReply(binding: UpstreamInterface["binding"], response: Response): Promise<A2AOutcome> {
  const text = await response.text();
  const body = parsedJson(text) as { error?: unknown } | undefined;
  const failure = binding === "JSONRPC" ? failureFromJsonRpc(body?.error) : failureFromRestBody(response.status, body);
  return { kind: "failure", failure: failure ?? failureFromGateway(upstreamFailure(response.status, text, response.headers)), headers: passedHeaders(response) };
}

async function decodeReply(binding: UpstreamInterface["binding"], response: Response, streaming: boolean): Promise<A2AOutcome> {
  if (!response.ok) return failedReply(binding, response);
  const headers = passedHeaders(response);
  if (streaming && response.headers.get("content-type")?.startsWith("text/event-stream") && response.body) {
    return { kind: "stream", items: upstreamItems(response.body, binding === "JSONRPC" ? jsonRpcStreamItem : restStreamItem), headers };
  }
  const text = await response.text();
  const body = parsedJson(text);
  const unreadable: A2AOutcome = { kind: "failure", failure: invalidReply(streaming ? "a stream was expected" : text.slice(0, 200)), headers };
  if (binding === "HTTP+JSON") {
    if (streaming || (body === undefined && text !== "")) return unreadable;
    return { kind: "result", value: body ?? null, headers };
  }
  // A JSON-RPC upstream may answer a streaming call with one error response instead of a stream.
  const envelope = body as { error?: unknown; result?: unknown } | undefined;
  if (envelope && "error" in envelope) return { kind: "failure", failure: failureFromJsonRpc(envelope.error) ?? unreadable.failure, headers };
  return !streaming && envelope && "result" in envelope ? { kind: "result", value: envelope.result, headers } : unreadable;
}

/** Sends one call to the upstream over the interface's binding and reads the reply. */
export async function callUpstream(target: UpstreamTarget, call: A2ACall, options: UpstreamCallOptions): Promise<A2AOutcome> {
  const request = httpRequestFor(target.iface, call, options.rpcId);
  if (!request) return { kind: "failure", failure: failureFromA2AError(new UnsupportedOperationError(`'${call.method}' is not an A2A method of the ${target.iface.binding} binding`)) };
  const streaming = isStreamingCall(call);
  const headers: Record<string, string> = {
    ...target.headers,
    "content-type": "application/json",
    accept: streaming ? "text/event-stream" : "application/json",
    [A2A_VERSION_HEADER]: options.version,
  };
  if (options.extensions) headers[HTTP_EXTENSION_HEADER] = options.extensions;
  const timeout = AbortSignal.timeout(REPLY_TIMEOUT_SECONDS * 1000);
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal.addEventListener("abort", abort, { once: true });
  timeout.addEventListener("abort", abort, { once: true });
  try {
    const response = await guardedFetch(request.url, { method: request.method, headers, body: request.body, signal: controller.signal }, target.outbound);
    // Once a stream's headers are in, only the caller going away ends it.
    timeout.removeEventListener("abort", abort);
    return await decodeReply(target.iface.binding, response, streaming);
  } catch (error) {
    if (timeout.aborted) return { kind: "failure", failure: failureFromGateway(upstreamTimedOut(REPLY_TIMEOUT_SECONDS)) };
    return { kind: "failure", failure: failureFromGateway(upstreamUnreachable((error as Error).message)) };
  }
}
