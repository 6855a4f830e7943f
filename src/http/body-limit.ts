import { Elysia } from "elysia";
import { GatewayError } from "./errors";

/** Bun's own default: bodies up to 128 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_MB = 128;

/**
 * Bun refuses a body past its `maxRequestBodySize` itself, with a bare 413. The server lets
 * bodies up to this many times the limit reach the gateway, which answers a declared length
 * over the limit with its error body; a chunked body (no length) past the backstop still gets
 * Bun's bare 413.
 */
const BACKSTOP_FACTOR = 4;

export const serverBodyLimitBytes = (limitMb: number) => limitMb * BACKSTOP_FACTOR * 2 ** 20;

/** Refuses a request whose declared body is over `limitMb` (server.max_request_body_mb) with the gateway's 413. */
export function bodyLimit(limitMb: number) {
  const limitBytes = limitMb * 2 ** 20;
  return new Elysia({ name: "body-limit" }).onRequest(({ request }) => {
    const declared = request.headers.get("content-length");
    if (declared === null || Number(declared) <= limitBytes) return;
    return new GatewayError({
      status: 413,
      errorType: "caller_request_too_large",
      message: `the request body of ${declared} bytes is over this gateway's limit of ${limitMb} MiB (server.max_request_body_mb)`,
      param: "body",
    }).toResponse();
  });
}
