import { badRequest } from "../http/errors";
import { formBodyRefused, isFormBody } from "../http/form-bodies";
import { ownerOf } from "./ownership";
import { type StoredRequest, storeRequest } from "./stored-request";

export const DEFAULT_RESULT_TTL_SECONDS = 3600;
/** A year: far enough for any poller, near enough that every timestamp stays representable. */
const MAX_RESULT_TTL_SECONDS = 365 * 24 * 3600;

export interface Submission {
  request: StoredRequest;
  resultTtlSeconds: number;
  owner?: string;
  webhook?: string;
}

function resultTtlOf(headers: Headers): number {
  const raw = headers.get("x-gw-async-job-result-ttl")?.trim();
  if (!raw) return DEFAULT_RESULT_TTL_SECONDS;
  const seconds = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds > MAX_RESULT_TTL_SECONDS) {
    throw badRequest(`x-gw-async-job-result-ttl must be a whole number of seconds up to ${MAX_RESULT_TTL_SECONDS}`, "x-gw-async-job-result-ttl");
  }
  return seconds === 0 ? DEFAULT_RESULT_TTL_SECONDS : seconds;
}

const streamingRefused = () => badRequest("streaming is not available for async requests; drop `stream: true`", "stream", "caller_streaming_unsupported");

/** JSON bodies must be objects; `stream: true` is refused in JSON and in multipart forms alike. */
async function checkBody(request: Request, body: ArrayBuffer): Promise<void> {
  const contentType = request.headers.get("content-type") ?? "";
  if (/multipart\/form-data/i.test(contentType)) {
    const form = await new Response(body, { headers: { "content-type": contentType } }).formData().catch(() => {
      throw badRequest("request body is not a valid multipart form", "body");
    });
    if (form.get("stream") === "true") throw streamingRefused();
    return;
  }
  if (isFormBody(request.headers)) throw formBodyRefused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw badRequest("request body is not valid JSON", "body", "caller_invalid_json");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("request body must be a JSON object", "body");
  if ((parsed as { stream?: unknown }).stream === true) throw streamingRefused();
}

/**
 * Reads an async submission: the body (kept byte for byte for the replay), the result ttl,
 * the webhook named, and the owner. `hasWebhook` checks that a named endpoint exists.
 */
export async function readSubmission(request: Request, replayPath: string, hasWebhook: (name: string) => boolean): Promise<Submission> {
  const body = await request.arrayBuffer();
  await checkBody(request, body);
  const resultTtlSeconds = resultTtlOf(request.headers);
  const webhook = request.headers.get("x-gw-async-webhook")?.trim() || undefined;
  if (webhook !== undefined && !hasWebhook(webhook)) throw badRequest(`no webhook endpoint is named '${webhook}'`, "x-gw-async-webhook", "caller_webhook_not_found");
  return { request: storeRequest(request, replayPath, body), resultTtlSeconds, owner: ownerOf(request.headers), webhook };
}
