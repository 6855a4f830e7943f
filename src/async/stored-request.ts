import type { StoredBody, StoredResponse } from "../../actors/async-job";
import { REPLAYED_PROMPT_HEADER } from "../inference/mounts/prompt-field";

/** The request a job replays, sealed in the job's snapshot because its headers carry credentials. */
export interface StoredRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  bodyBase64: string;
}

/**
 * Headers that belong to this hop or to the async submission itself, not to the replayed call;
 * and the one only the gateway writes, which a client's copy must not reach a replay with.
 */
const NOT_REPLAYED = new Set([
  REPLAYED_PROMPT_HEADER,
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "expect",
  "x-gw-async",
  "x-gw-async-id",
  "x-gw-async-job-result-ttl",
  "x-gw-async-webhook",
]);

export function storeRequest(request: Request, path: string, body: ArrayBuffer): StoredRequest {
  const headers: Array<[string, string]> = [];
  request.headers.forEach((value, name) => {
    if (!NOT_REPLAYED.has(name.toLowerCase())) headers.push([name, value]);
  });
  return { method: request.method, path, headers, bodyBase64: Buffer.from(body).toString("base64") };
}

const INTERNAL_ORIGIN = "http://gateway.internal";

/** The stored request as a fresh Request to the synchronous twin, marked with the job it runs for. */
export function replayRequest(stored: StoredRequest, jobId: string, signal: AbortSignal): Request {
  const headers = new Headers(stored.headers);
  headers.set("x-gw-async-job-id", jobId);
  const body = stored.method === "GET" || stored.method === "HEAD" ? undefined : Buffer.from(stored.bodyBase64, "base64");
  return new Request(`${INTERNAL_ORIGIN}${stored.path}`, { method: stored.method, headers, body, signal });
}

const isJson = (contentType: string) => /\bjson\b/i.test(contentType);

/** A response kept for polling: JSON parsed, anything else (audio, images) as base64. */
export async function storeResponse(response: Response): Promise<StoredResponse> {
  const contentType = response.headers.get("content-type") ?? "application/octet-stream";
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: StoredBody = { base64: bytes.toString("base64") };
  if (isJson(contentType)) {
    try {
      body = { json: JSON.parse(bytes.toString("utf8")) };
    } catch {
      // A body that claims JSON but is not stays as bytes.
    }
  }
  return { status: response.status, contentType, body };
}

/** The stored response as the job's `result` (or `error`) field shows it. */
export function resultOf(response: StoredResponse): unknown {
  return "json" in response.body ? response.body.json : { content_type: response.contentType, data_base64: response.body.base64 };
}
