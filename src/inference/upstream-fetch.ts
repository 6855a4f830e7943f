import type { GatewayError } from "../http/errors";
import type { UpstreamCall } from "./providers/types";
import { clientClosed, upstreamFailure, upstreamTimedOut, upstreamUnreachable } from "./upstream-errors";
import { timerDelay } from "../../actors/runtime/clock";

export type UpstreamReply =
  | { ok: true; status: number; headers: Headers; body: string }
  | { ok: true; status: number; headers: Headers; stream: ReadableStream<Uint8Array> }
  | { ok: false; error: GatewayError };

class TimedOut extends Error {}

/** JSON, text, XML and event streams are read as text; anything else is bytes. A reply without a body type is text. */
const isTextual = (headers: Headers) => {
  const type = headers.get("content-type");
  return !type || /json|text\/|xml|event-stream|x-www-form-urlencoded/i.test(type);
};

/**
 * Sends one upstream call. The timeout bounds the wait for the reply (for a stream: for its
 * headers); the client's signal cancels the call, streams included, whenever it fires.
 */
export async function sendUpstream(call: UpstreamCall, stream: boolean, timeoutSeconds: number, clientSignal: AbortSignal): Promise<UpstreamReply> {
  if (clientSignal.aborted) return { ok: false, error: clientClosed() };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimedOut()), timerDelay(timeoutSeconds * 1000));
  const forwardAbort = () => controller.abort(clientSignal.reason);
  clientSignal.addEventListener("abort", forwardAbort, { once: true });
  let relayed = false;
  try {
    const response = await fetch(call.url, { method: call.method ?? "POST", headers: call.headers, body: call.body, signal: controller.signal });
    if (!response.ok) return { ok: false, error: upstreamFailure(response.status, await response.text(), response.headers) };
    // Binary replies (audio, images, file contents) pass through as they arrive, never as text.
    relayed = (stream || !isTextual(response.headers)) && response.body !== null;
    if (relayed) return { ok: true, status: response.status, headers: response.headers, stream: response.body! };
    return { ok: true, status: response.status, headers: response.headers, body: await response.text() };
  } catch (error) {
    if (controller.signal.reason instanceof TimedOut) return { ok: false, error: upstreamTimedOut(timeoutSeconds) };
    if (clientSignal.aborted) return { ok: false, error: clientClosed() };
    return { ok: false, error: upstreamUnreachable((error as Error).message) };
  } finally {
    clearTimeout(timer);
    if (!relayed) clientSignal.removeEventListener("abort", forwardAbort);
  }
}
