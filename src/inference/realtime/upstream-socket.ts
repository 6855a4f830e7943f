import { GatewayError } from "../../http/errors";
import { type PreparedConnection, prepareConnection } from "../dispatch";
import type { Attempt } from "../../db/schema/types";
import type { AdmittedCall, Inference } from "../handle";
import type { InferenceOutcome } from "../hooks";
import type { ReplySummary } from "../reply-summary";
import type { ModelRef } from "../model-ref";
import { timerDelay } from "../../../actors/runtime/clock";
import { pinnedUrl } from "../../outbound/guarded-fetch";
import { checkHost } from "../../outbound/host-check";

/**
 * The handshake's URL as the adapter built it (`https://…/v1/realtime?model=…`), in the WebSocket
 * scheme, once the outbound address policy passed its host. A plain socket goes to the address
 * that was checked; a TLS one by name, as its certificate is checked against the name.
 */
async function socketUrl({ call, outbound }: PreparedConnection): Promise<string> {
  const url = new URL(call.url);
  const check = await checkHost(url, outbound);
  if (!check.ok) throw new Error(check.reason);
  const target = url.protocol === "http:" ? pinnedUrl(url, check.address) : url;
  target.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  return target.toString();
}

/** Close codes a peer may be sent; the others (1005 none given, 1006 dropped) only describe a close. */
const sendableClose = (code: number) => code === 1000 || (code >= 1001 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);

type Closable = { readyState: number; close(code?: number, reason?: string): void };

/**
 * One side of a relayed session closed with `code`: the other sides still open follow with the
 * same code where each may send it (a client socket, as the gateway is to the provider, sends only
 * 1000 and the application's own codes; a server socket, as it is to the client, any but those
 * that only describe a close, which become 1011).
 */
export function closeOtherSides(code: number, reason: string, upstream: Closable | undefined, client: Closable | undefined): void {
  if (upstream?.readyState === WebSocket.OPEN) upstream.close(code >= 3000 && code <= 4999 ? code : 1000, reason);
  if (client?.readyState === WebSocket.OPEN) client.close(sendableClose(code) ? code : 1011, reason);
}

/** Who answered a session and each of its turns: the target and key its provider socket opened on. */
export type Answered = Pick<OpenedUpstream, "target" | "keyId" | "isFallback">;

/** A turn's one try: on the session's provider socket. */
export const attemptOn = ({ target, keyId, isFallback }: Answered): Attempt => ({ provider: target.provider, model: target.model, key: keyId, is_fallback: isFallback });

const NOTHING_USED: ReplySummary = { toolCallNames: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };

/**
 * How a session that ended is logged: what it opened on, the tries that opened it, nothing used
 * (its turns carry the usage), and a 502 when the provider dropped it: a close that is no close
 * frame of its own (1006), where one without a status (1005) is a close all the same.
 */
export function endedSession(api: string, { target, keyId, isFallback }: Answered, attempts: readonly Attempt[], by: "client" | "provider", code: number): Omit<InferenceOutcome, "latencyMs"> {
  const dropped = by === "provider" && !sendableClose(code) && code !== 1005;
  const error = dropped ? new GatewayError({ status: 502, errorType: "provider_unreachable", message: `provider '${target.provider}' dropped the ${api} session (close code ${code})` }) : undefined;
  return { status: error ? 502 : 200, error, answered: { target, keyId, isFallback }, attempts: [...attempts], summary: NOTHING_USED, cost: 0 };
}

const unreachable = (provider: string, why: string) =>
  new GatewayError({ status: 502, errorType: "provider_unreachable", message: `provider '${provider}' did not open a Realtime session: ${why}`, extra: { provider } });

/**
 * Opens the provider's side of a Realtime session and resolves once it is open. A refused or
 * failed handshake (a bad key, an unknown model: the provider answers it before any event) is a
 * 502, as is no answer within the provider's request timeout.
 */
async function openUpstreamSocket(provider: string, prepared: PreparedConnection): Promise<WebSocket> {
  const timeoutMs = prepared.timeoutSeconds * 1000;
  const url = await socketUrl(prepared).catch((error: Error) => {
    throw unreachable(provider, error.message);
  });
  // A pinned URL names the address: the Host header keeps naming the provider.
  const headers = { ...prepared.call.headers, host: new URL(prepared.call.url).host };
  return new Promise((resolve, reject) => {
    // Bun's WebSocket takes handshake headers, which the browser's does not. The adapter's
    // handshake call (realtimeHandshake) carries none of an HTTP body's.
    const socket = new WebSocket(url, { headers } as unknown as string[]);
    const settle = (error?: GatewayError) => {
      clearTimeout(timer);
      socket.removeEventListener("open", opened);
      socket.removeEventListener("close", closed);
      if (!error) return resolve(socket);
      socket.close();
      reject(error);
    };
    const opened = () => settle();
    const closed = (event: CloseEvent) => settle(unreachable(provider, `the handshake failed${event.reason ? ` (${event.reason})` : ""}`));
    const timer = setTimeout(() => settle(unreachable(provider, `no answer within ${timeoutMs / 1000} s`)), timerDelay(timeoutMs));
    socket.addEventListener("open", opened);
    socket.addEventListener("close", closed);
  });
}

/** The provider's side of a session, as opened: on which target, with which key. */
export interface OpenedUpstream {
  upstream: WebSocket;
  target: ModelRef;
  keyId: string | undefined;
  isFallback: boolean;
  /** What the adapter wrote for the provider to get first, when the protocol opens with a message (Gemini Live's setup). */
  firstMessage?: string;
}

/**
 * Opens the provider's socket on the first target that takes it: the primary, then each fallback
 * in order, each try in `attempts`. When none does, the primary's error.
 */
export async function openFirstTarget(inference: Inference, operation: "realtime" | "live", session: AdmittedCall, request: Request, body: Record<string, unknown>, attempts: Attempt[]): Promise<OpenedUpstream> {
  let primaryError: GatewayError | undefined;
  const callId = typeof body.call_id === "string" ? body.call_id : undefined;
  for (const [index, target] of session.context.targets.entries()) {
    // A call created through the gateway is watched with the key that created it (keys may be projects of their own).
    const pinnedKeyId = request.headers.get("x-gw-api-key-id") ?? (callId ? await inference.objectKeys?.keyOf(target.provider, callId) : undefined);
    const prepared = await prepareConnection(inference.providers, operation, target, { body, clientHeaders: request.headers, pinnedKeyId, allowedKeyIds: session.context.allowedKeyIds });
    const attempt: Attempt = { provider: target.provider, model: target.model, key: prepared instanceof GatewayError ? undefined : prepared.keyId, is_fallback: index > 0 };
    attempts.push(attempt);
    try {
      if (prepared instanceof GatewayError) throw prepared;
      const upstream = await openUpstreamSocket(target.provider, prepared);
      return { upstream, target, keyId: prepared.keyId, isFallback: index > 0, firstMessage: typeof prepared.call.body === "string" ? prepared.call.body : undefined };
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      Object.assign(attempt, { status: error.status, error_type: error.errorType });
      primaryError ??= error;
    }
  }
  throw primaryError!;
}
