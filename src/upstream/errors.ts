import { GatewayError } from "../http/errors";
import { VIRTUAL_KEY_PREFIX } from "../db/schema/types";
import { REDACTED_CREDENTIAL, withoutEchoes } from "./credential-echoes";

const VIRTUAL_KEY = new RegExp(`${VIRTUAL_KEY_PREFIX}[A-Za-z0-9_-]+`, "g");

/**
 * Upstream text without the credentials the call carried (in any spelling, see
 * credential-echoes.ts) nor any virtual key: providers echo the key they were sent ("Incorrect
 * API key provided: sk-..."), and what they say reaches the client, the request log and webhooks.
 */
export const withoutCredentials = (text: string, credentials: readonly string[]): string => withoutEchoes(text.replace(VIRTUAL_KEY, REDACTED_CREDENTIAL), credentials);

function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (ms > 0) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Pulls the human message out of the error bodies providers send (OpenAI, Anthropic, Gemini, plain text). */
function upstreamMessage(text: string, status: number): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "string") return body.error;
    const message = body.error?.message ?? body.message;
    if (message === undefined || message === null) return `upstream answered ${status}`;
    // Some put the details in a structure (Mistral's validation errors): they are kept as JSON text.
    return typeof message === "string" ? message : JSON.stringify(message);
  } catch {
    return text.trim().slice(0, 500) || `upstream answered ${status}`;
  }
}

function classify(status: number): `provider_${string}` {
  if (status === 429) return "provider_rate_limited";
  if (status === 401 || status === 403) return "provider_auth_failed";
  if (status === 404) return "provider_not_found";
  if (status === 408 || status === 504) return "provider_timeout";
  if (status >= 500) return "provider_server_error";
  return "provider_rejected_request";
}

/** An upstream's non-2xx reply, with its status preserved and the `credentials` it was sent taken out of its message. */
export function upstreamFailure(status: number, text: string, headers: Headers, credentials: readonly string[] = []): GatewayError {
  return new GatewayError({
    status,
    errorType: classify(status),
    message: withoutCredentials(upstreamMessage(text, status), credentials),
    isGatewayError: false,
    extra: { retry_after_ms: status === 429 ? retryAfterMs(headers) : undefined },
  });
}

export const upstreamUnreachable = (reason: string, credentials: readonly string[] = []) =>
  new GatewayError({ status: 502, errorType: "provider_unreachable", message: `upstream could not be reached: ${withoutCredentials(reason, credentials)}` });

/** The outbound address policy refused the upstream's address: configuration, not the provider's failure, so never retried. */
export const upstreamRefused = (reason: string) => new GatewayError({ status: 502, errorType: "gateway_upstream_address_refused", message: `the upstream was not called: ${reason}` });

export const upstreamTimedOut = (seconds: number) =>
  new GatewayError({ status: 504, errorType: "provider_timeout", message: `upstream did not answer within ${seconds}s` });

/** A 2xx reply that does not read as the provider's format (an HTML error page, an error object). */
export const unreadableReply = (provider: string, format: string) =>
  new GatewayError({ status: 502, errorType: "provider_bad_response", isGatewayError: false, message: `${provider} answered with a body that is not a valid ${format}-format reply` });

/** A stream that broke off after its 200: the provider said so in the stream (an error event), or stopped sending. */
export const upstreamStreamFailed = (message: string) => new GatewayError({ status: 502, errorType: "provider_stream_error", isGatewayError: false, message });

/** A stream whose upstream sent nothing for its provider's idle timeout: ended by the gateway, as a timeout. */
export const streamIdleTimedOut = (seconds: number) =>
  new GatewayError({ status: 504, errorType: "provider_timeout", code: "provider_stream_idle_timeout", message: `upstream sent nothing for ${seconds}s mid-stream: the gateway ended the stream` });

/** What ended a stream early, as the error the client's format reports in the stream. */
export const streamFailure = (error: unknown) =>
  error instanceof GatewayError ? error : upstreamStreamFailed(`the upstream stream broke off: ${error instanceof Error ? error.message : String(error)}`);

export const clientClosed = () => new GatewayError({ status: 499, errorType: "caller_closed_request", message: "client closed the request" });

/** 5xx and transport failures are worth retrying on the same key. */
export const isRetryable = (error: GatewayError) => (error.status >= 500 && error.errorType !== "gateway_upstream_address_refused") || error.errorType === "provider_timeout";
/** 429 and auth failures take the key out of rotation for this request. */
export const rotatesKey = (error: GatewayError) => error.status === 429 || error.status === 401 || error.status === 403;
