import type { NewRequestLogRow } from "../db/schema/logs";
import type { GatewayError } from "../http/errors";
import { metadataOf } from "../inference/handle";

/** Refused before it was let in: the caller's credentials were missing or not valid. */
export const isRefusedCaller = (status: number) => status === 401;

/**
 * The row of a request refused before its body was read (its virtual key is in a header): what
 * it asked for was never read, so the row names no provider or model, and its kind is `request`.
 */
export function refusedBeforeBodyRow(headers: Headers, error: GatewayError, region: string | null): NewRequestLogRow {
  return {
    id: Bun.randomUUIDv7(),
    timestamp: new Date(),
    object: "request",
    provider: "",
    model: "",
    status: "error",
    statusCode: error.status,
    errorType: error.errorType,
    errorMessage: error.message,
    toolCallNames: [],
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: 0,
    latencyMs: 0,
    stream: false,
    sessionId: headers.get("x-gw-session-id"),
    metadata: metadataOf(headers, {}),
    attempts: [],
    requestContent: null,
    responseContent: null,
    region,
  };
}
