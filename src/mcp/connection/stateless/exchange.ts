import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";
import { parseSSE } from "../../../http/sse";
import type { McpClientSdk } from "../../sdk";

export type RpcAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/** Where a server of the 2026-07-28 revision is, and how to reach it. */
export interface StatelessEndpoint {
  url: URL;
  /** Under the client's outbound policy (and refreshing OAuth tokens on a refusal). */
  fetch: FetchLike;
  /** The configured headers and the current access token. */
  headers(): Promise<Record<string, string>>;
  /** The server refused the credentials (401): what the SDK does then (a refresh, a consent recorded as lost), before the refusal is thrown. */
  refused?: () => Promise<void>;
  sdk: McpClientSdk;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isAnswerTo = (message: unknown, id: JSONRPCRequest["id"]): message is RpcAnswer => isRecord(message) && message.id === id && ("result" in message || "error" in message) && !("method" in message);

function parsedMessage(text: string): JSONRPCMessage | undefined {
  try {
    const message: unknown = JSON.parse(text);
    return isRecord(message) && message.jsonrpc === "2.0" ? (message as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer at the end of an SSE reply; the notifications before it go to `onNotification`. */
async function answerOfStream(body: ReadableStream<Uint8Array>, id: JSONRPCRequest["id"], onNotification: (notification: JSONRPCNotification) => void): Promise<RpcAnswer | undefined> {
  const reader = body.pipeThrough(parseSSE()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return undefined;
      const message = value.data ? parsedMessage(value.data) : undefined;
      if (isAnswerTo(message, id)) return message;
      if (message && "method" in message && !("id" in message)) onNotification(message as JSONRPCNotification);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * One request, one POST: its answer, in JSON or at the end of an SSE stream (whose notifications
 * go to `onNotification`). A JSON-RPC error is an answer whatever the HTTP status; a refusal
 * without one throws as the SDK's own HTTP transport does, so the connection's errors read alike.
 */
export async function exchange(endpoint: StatelessEndpoint, request: JSONRPCRequest, headers: Record<string, string>, signal: AbortSignal, onNotification: (notification: JSONRPCNotification) => void = () => {}): Promise<RpcAnswer> {
  const response = await endpoint.fetch(endpoint.url, {
    method: "POST",
    headers: { ...(await endpoint.headers()), ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(request),
    signal,
  });
  if (response.status === 401) {
    await response.body?.cancel();
    await endpoint.refused?.();
    throw new endpoint.sdk.UnauthorizedError();
  }
  if (response.ok && response.body && (response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const answer = await answerOfStream(response.body, request.id, onNotification);
    if (!answer) throw new Error(`the server ended its reply to ${request.method} without an answer`);
    return answer;
  }
  const text = await response.text();
  const answer = parsedMessage(text);
  if (isAnswerTo(answer, request.id)) return answer;
  throw new endpoint.sdk.StreamableHTTPError(response.status, `Error POSTing to endpoint: ${text.slice(0, 500)}`);
}
