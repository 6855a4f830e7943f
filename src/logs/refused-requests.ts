import type { NewRequestLogRow } from "../db/schema/logs";
import type { GatewayError } from "../http/errors";
import { metadataOf } from "../inference/handle";
import type { CallerIdentity } from "../inference/hooks";
import { callerColumns } from "./log-row";

/** Refused before it was let in: the caller's credentials were missing or not valid. */
export const isRefusedCaller = (status: number) => status === 401;

/** A model name as far as the log keeps one from a body no route accepted. */
const MODEL_NAME_LIMIT = 200;

function requestedModel(body: unknown): string {
  const model = body && typeof body === "object" ? (body as { model?: unknown }).model : undefined;
  return typeof model === "string" ? model.slice(0, MODEL_NAME_LIMIT) : "";
}

/** A refused request as its log row tells it: `content` is its body as logged (or null), `caller` the virtual key it came with. */
export interface Refusal {
  headers: Headers;
  error: GatewayError;
  body: unknown;
  content: string | null;
  caller?: CallerIdentity;
}

/**
 * The row of a request the gateway refused before its pipeline took it (no virtual key, a body
 * that is not JSON or fails its route's schema): it names the model the body asked for, if it
 * could be read, no provider, and its kind is `request`.
 */
export function refusedRequestRow({ headers, error, body, content, caller }: Refusal, region: string | null): NewRequestLogRow {
  return {
    id: Bun.randomUUIDv7(),
    timestamp: new Date(),
    object: "request",
    provider: "",
    model: requestedModel(body),
    ...callerColumns(caller),
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
    requestContent: content,
    responseContent: null,
    region,
  };
}
