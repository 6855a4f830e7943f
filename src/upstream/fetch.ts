import type { GatewayError } from "../http/errors";
import { guardedFetch, OutboundRefused } from "../outbound/guarded-fetch";
import type { UpstreamCall, UpstreamTarget } from "./adapter";
import { withoutEchoedCredentials, withoutEchoes } from "./credential-echoes";
import { clientClosed, upstreamFailure, upstreamRefused, upstreamTimedOut, upstreamUnreachable } from "./errors";
import { timerDelay } from "../../actors/runtime/clock";

export type UpstreamReply =
  | { ok: true; status: number; headers: Headers; body: string }
  | { ok: true; status: number; headers: Headers; stream: ReadableStream<Uint8Array> }
  | { ok: false; error: GatewayError };

class TimedOut extends Error {}

const abortTimedOut = (controller: AbortController) => controller.abort(new TimedOut());

/** One options object for every call's abort listener. */
const ONCE: AddEventListenerOptions = Object.freeze({ once: true });

/** JSON, text, XML and event streams are read as text; anything else is bytes. A reply without a body type is text. */
const isTextual = (headers: Headers) => {
  const type = headers.get("content-type");
  return !type || /json|text\/|xml|event-stream|x-www-form-urlencoded/i.test(type);
};

const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", "api-key", "x-goog-api-key"]);
const AUTH_SCHEME = /^(bearer|basic)\s+/i;

/**
 * The secrets a call carries: the key it was built with, its credential headers (without their
 * scheme) and a `key` query parameter. Read from the call's own header record: it runs on every
 * call, and a Headers built from the record, a map and a filter were a few hundred bytes each time.
 */
function credentialsOf(call: UpstreamCall, keySecret: string | undefined): string[] {
  const credentials: string[] = keySecret ? [keySecret] : [];
  for (const name in call.headers) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) continue;
    const sent = call.headers[name]!.replace(AUTH_SCHEME, "");
    if (sent && sent !== keySecret) credentials.push(sent);
  }
  const query = call.url.includes("key=") && URL.canParse(call.url) ? new URL(call.url).searchParams.get("key") : null;
  if (query) credentials.push(query);
  return credentials;
}

/**
 * Sends one upstream call. The timeout bounds the wait for the reply (for a stream: for its
 * headers); the client's signal cancels the call, streams included, whenever it fires.
 */
export async function sendUpstream(call: UpstreamCall, stream: boolean, timeoutSeconds: number, clientSignal: AbortSignal, target: Pick<UpstreamTarget, "key" | "outbound">): Promise<UpstreamReply> {
  const keySecret = target.key?.secret;
  if (clientSignal.aborted) return { ok: false, error: clientClosed() };
  const controller = new AbortController();
  const timer = setTimeout(abortTimedOut, timerDelay(timeoutSeconds * 1000), controller);
  const forwardAbort = () => controller.abort(clientSignal.reason);
  clientSignal.addEventListener("abort", forwardAbort, ONCE);
  let relayed = false;
  try {
    const response = await guardedFetch(call.url, { method: call.method ?? "POST", headers: call.headers, body: call.body, signal: controller.signal }, target.outbound);
    const credentials = credentialsOf(call, keySecret);
    if (!response.ok) return { ok: false, error: upstreamFailure(response.status, await response.text(), response.headers, credentials) };
    // Binary replies (audio, images, file contents) pass through as they arrive, never as text.
    const textual = isTextual(response.headers);
    relayed = (stream || !textual) && response.body !== null;
    // A stream may end in an error event echoing the key (after its 200): its text loses the key as it passes.
    if (relayed) return { ok: true, status: response.status, headers: response.headers, stream: textual ? withoutEchoedCredentials(response.body!, credentials) : response.body! };
    return { ok: true, status: response.status, headers: response.headers, body: withoutEchoes(await response.text(), credentials) };
  } catch (error) {
    if (controller.signal.reason instanceof TimedOut) return { ok: false, error: upstreamTimedOut(timeoutSeconds) };
    if (clientSignal.aborted) return { ok: false, error: clientClosed() };
    if (error instanceof OutboundRefused) return { ok: false, error: upstreamRefused(error.message) };
    return { ok: false, error: upstreamUnreachable((error as Error).message, credentialsOf(call, keySecret)) };
  } finally {
    clearTimeout(timer);
    if (!relayed) clientSignal.removeEventListener("abort", forwardAbort);
  }
}
