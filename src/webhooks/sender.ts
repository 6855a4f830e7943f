import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import { type AttemptInput, type AttemptResult, outcomeOfStatus } from "../../actors/webhook-delivery";
import type { EnvReader } from "../config/env-reference";
import type { WebhookDeliveryRow } from "../db/schema";
import { DeadlineExceeded, withDeadline } from "./deadline";
import type { DeliveryHistory } from "./delivery-history";
import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";
import { guardedFetch, OutboundRefused } from "../outbound/guarded-fetch";
import type { HostResolver } from "../outbound/host-check";
import { receiverPolicy } from "./endpoint-rules";
import { TEST_EVENT } from "./payload";
import { signDelivery } from "./signing";

export interface SenderDeps {
  endpoints: WebhookEndpointStore;
  history: DeliveryHistory;
  snapshots: ActorSnapshotStore;
  resolveHost: HostResolver;
  clock: Clock;
  readEnv: EnvReader;
}

type Sent = Omit<AttemptResult, "finishedAt"> & { responseExcerpt?: string };

/** One HTTP exchange and when it happened; `endpointId` and `recorded` are absent when no request was made. */
export interface Exchange {
  input: AttemptInput;
  sent: Sent;
  endpointId?: string;
  /** The attempt's history row, written before its request left. */
  recorded?: { id: string; attempt: number };
  startedAt: number;
  latencyMs: number;
}

const EXCERPT_BYTES = 1024;
const USER_AGENT = "gateway-webhooks/1";

async function excerptOf(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < EXCERPT_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES));
  return text || undefined;
}

function headersFor(deps: SenderDeps, endpoint: WebhookEndpoint, delivery: WebhookDeliveryRow, url: URL): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(deps.endpoints.headersOf(endpoint))) {
    const resolved = deps.readEnv(value);
    if (resolved) headers.set(name, resolved);
  }
  const timestamp = Math.floor(deps.clock.now() / 1000);
  headers.set("host", url.host);
  headers.set("user-agent", USER_AGENT);
  headers.set("content-type", "application/json");
  headers.set("webhook-id", delivery.webhookId);
  headers.set("webhook-timestamp", String(timestamp));
  headers.set("webhook-signature", signDelivery(deps.endpoints.secretOf(endpoint), delivery.webhookId, timestamp, delivery.payload));
  return headers;
}

async function send(deps: SenderDeps, endpoint: WebhookEndpoint, delivery: WebhookDeliveryRow, signal: AbortSignal): Promise<Sent> {
  const url = new URL(endpoint.url);
  const init = { method: "POST", headers: headersFor(deps, endpoint, delivery, url), body: delivery.payload, signal };
  const response = await guardedFetch(url, init, receiverPolicy(endpoint.allowPrivateNetwork, deps.resolveHost)).catch((error: unknown) => {
    if (error instanceof OutboundRefused) return { outcome: "permanent", error: error.message } satisfies Sent;
    throw error;
  });
  if (!(response instanceof Response)) return response;
  const responseExcerpt = await excerptOf(response);
  const redirect = response.status >= 300 && response.status < 400 ? `redirect to ${response.headers.get("location") ?? "(no location)"} not followed` : undefined;
  return { outcome: outcomeOfStatus(response.status), statusCode: response.status, responseExcerpt, error: redirect };
}

function failureOf(error: unknown): Sent {
  if (error instanceof DeadlineExceeded) return { outcome: "retryable", error: `attempt timed out: ${error.message}` };
  return { outcome: "retryable", error: error instanceof Error ? error.message : String(error) };
}

/**
 * The HTTP part of one attempt: guard the resolved address, sign, POST within the endpoint's
 * attempt timeout. A delivery whose endpoint was deleted throws (the machine fails it); a
 * disabled endpoint fails it without a request.
 */
export async function exchange(deps: SenderDeps, input: AttemptInput, signal: AbortSignal): Promise<Exchange> {
  const endpoint = deps.endpoints.get(input.endpointId);
  const delivery = await deps.history.get(input.deliveryId);
  if (!endpoint || !delivery) throw new Error(`webhook endpoint '${input.endpointId}' no longer exists`);
  const startedAt = deps.clock.now();
  if (endpoint.disabled && delivery.event !== TEST_EVENT) return { input, sent: { outcome: "permanent", error: "the endpoint is disabled" }, startedAt, latencyMs: 0 };
  const recorded = await recordAttemptStarted(deps, input, startedAt);
  const started = performance.now();
  const sent = await withDeadline(deps.clock, endpoint.attemptTimeoutSeconds * 1000, signal, (bounded) => send(deps, endpoint, delivery, bounded)).catch(failureOf);
  if (signal.aborted) throw signal.reason;
  return { input, sent, endpointId: endpoint.id, recorded, startedAt, latencyMs: Math.round(performance.now() - started) };
}

/** What an attempt's history row says until its outcome replaces it: all a crash during the attempt leaves. */
export const INTERRUPTED_ATTEMPT = "interrupted: the gateway stopped before this attempt's outcome was known; the receiver may have got it";

/**
 * Records the attempt before its request leaves, so one a crash cuts short is in the history (a
 * receiver that got it sees it there). Numbered after every attempt recorded so far: the attempt
 * made again after a restart follows the interrupted one.
 */
async function recordAttemptStarted(deps: SenderDeps, input: AttemptInput, startedAt: number): Promise<{ id: string; attempt: number }> {
  const recorded = { id: crypto.randomUUID(), attempt: Math.max(input.attempt, (await deps.history.lastAttemptNumber(input.deliveryId)) + 1) };
  const row = { ...recorded, deliveryId: input.deliveryId, startedAt: new Date(startedAt), latencyMs: 0, statusCode: null, outcome: "retryable" as const, error: INTERRUPTED_ATTEMPT, responseExcerpt: null };
  await deps.snapshots.commit([deps.history.recordAttempt(row)], { retry: true });
  return recorded;
}

/** Records the attempt and the endpoint's outcome counters, and tells the machine how it went. */
export async function recordExchange(deps: SenderDeps, { input, sent, endpointId, recorded, startedAt, latencyMs }: Exchange): Promise<AttemptResult> {
  const finishedAt = deps.clock.now();
  if (endpointId !== undefined && recorded) {
    const attempt = deps.history.recordAttempt({
      ...recorded,
      deliveryId: input.deliveryId,
      startedAt: new Date(startedAt),
      latencyMs,
      statusCode: sent.statusCode ?? null,
      outcome: sent.outcome,
      error: sent.error ?? null,
      responseExcerpt: sent.responseExcerpt ?? null,
    });
    const stats = deps.endpoints.recordAttempt(endpointId, sent.outcome === "delivered", new Date(finishedAt));
    await deps.snapshots.commit(stats ? [attempt, stats] : [attempt], { retry: true });
  }
  return { outcome: sent.outcome, statusCode: sent.statusCode, error: sent.error, finishedAt };
}
