import { type Static, Type as t } from "@sinclair/typebox";
import type { NewRequestLogRow } from "../db/schema/logs";
import type { GatewayError } from "../http/errors";
import { metadataOf } from "../inference/handle";

/**
 * How a request refused for want of a valid virtual key (a 401) is logged (`logs_store.refused_requests`):
 * `without_content` (the default) keeps its row without the body, `off` keeps none. An anonymous
 * caller then writes no more to the log than its request line, however large its body.
 */
export const RefusedRequestLogging = t.Union([t.Literal("without_content"), t.Literal("off")], {
  description: "What the log keeps of a request refused for want of a valid virtual key (401): `without_content` (default) logs it without its body, `off` does not log it.",
});
export type RefusedRequestLogging = Static<typeof RefusedRequestLogging>;

export const DEFAULT_REFUSED_REQUEST_LOGGING: RefusedRequestLogging = "without_content";

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
