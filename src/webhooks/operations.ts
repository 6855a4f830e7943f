import { createHash } from "node:crypto";
import type { Clock } from "../../actors/runtime/clock";
import { conflict, notFound } from "../http/errors";
import type { DeliveryHistory, DeliveryView } from "./delivery-history";
import type { WebhookEndpointContext } from "../../actors/webhook-endpoint";
import type { WebhookEvent } from "../db/schema";
import { parseTimestamp } from "../http/timestamps";
import type { DeliveryRunner, NewMessage } from "./delivery-runner";
import type { EndpointAnnouncement, EndpointLifecycles } from "./endpoint-lifecycle";
import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";
import { endpointPayload, eventOf, type FinishedJob, jobPayload, TEST_EVENT, testPayload } from "./payload";
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from "./schemas";
import { generateWebhookId } from "./signing";

/** An entry for the audit log (enterprise): what the gateway itself did to an endpoint. */
export interface EndpointAuditEntry {
  action: string;
  endpointId: string;
  summary: Record<string, unknown>;
}

export interface OperationDeps {
  endpoints: WebhookEndpointStore;
  history: DeliveryHistory;
  runner: DeliveryRunner;
  lifecycles: EndpointLifecycles;
  clock: Clock;
  /** Messages (webhook-ids) this node is re-queuing right now, between the in-flight check and the enqueue. */
  redelivering: Set<string>;
  audit?: (entry: EndpointAuditEntry) => Promise<void>;
}

/** A message for an endpoint: sent, or recorded as skipped while the endpoint is disabled automatically. */
function dispatch({ runner }: OperationDeps, message: NewMessage): Promise<string | undefined> {
  return message.endpoint.state === "disabled_automatically" ? runner.skip(message) : runner.enqueue(message);
}

/** Ids derived from what the message is about (endpoint included): sending it twice (after a restart) finds the first delivery. */
function derivedIds(subject: string) {
  const digest = (purpose: string) => createHash("sha256").update(`${purpose}:${subject}`).digest("base64url").slice(0, 32);
  return { deliveryId: `dlv_${digest("delivery")}`, webhookId: `msg_${digest("message")}` };
}

const jobDeliveryIds = (job: FinishedJob, endpoint: WebhookEndpoint) => derivedIds(`${job.id}:${endpoint.id}:${eventOf(job)}`);

/** The endpoint the job named, if it is enabled and subscribed; with none named, every enabled subscriber. */
function targetsOf({ endpoints }: OperationDeps, job: FinishedJob): WebhookEndpoint[] {
  const event = eventOf(job);
  if (job.webhook === undefined) return endpoints.subscribers(event);
  const named = endpoints.findByName(job.webhook);
  return named && !named.disabled && named.events.includes(event) ? [named] : [];
}

export async function notifyJobFinished(deps: OperationDeps, job: FinishedJob): Promise<void> {
  for (const endpoint of targetsOf(deps, job)) {
    await dispatch(deps, { ...jobDeliveryIds(job, endpoint), endpoint, event: eventOf(job), jobId: job.id, payload: jobPayload(job, endpoint) });
  }
}

/**
 * A message another area sends to one endpoint it names (an alert channel), signed and retried as
 * every delivery; `subject` names what it is about, so sending it again finds the first delivery.
 */
export async function sendToEndpoint(deps: OperationDeps, endpointId: string, event: string, payload: string, subject: string): Promise<string> {
  const endpoint = deps.endpoints.get(endpointId);
  if (!endpoint) throw new Error(`no webhook endpoint '${endpointId}'`);
  await dispatch(deps, { ...derivedIds(`${subject}:${endpointId}`), endpoint, event, payload });
  return `queued for webhook endpoint '${endpoint.name}'${endpoint.state === "disabled_automatically" ? " (skipped: the endpoint is disabled)" : ""}`;
}

/** The other endpoints subscribed to it are told; the audit log records it. */
export async function announceEndpointChange(deps: OperationDeps, endpointId: string, event: EndpointAnnouncement, context: WebhookEndpointContext): Promise<void> {
  const endpoint = deps.endpoints.get(endpointId);
  if (!endpoint) return;
  const at = new Date(deps.clock.now());
  const details = { failingSince: context.failingSince, reason: context.disabledReason };
  for (const subscriber of deps.endpoints.subscribers(event as WebhookEvent)) {
    if (subscriber.id === endpointId) continue;
    // Ids from the change itself: a change made again after a crash finds its first messages.
    const ids = derivedIds(`${endpointId}:${event}:${context.stateSince}:${subscriber.id}`);
    await dispatch(deps, { ...ids, endpoint: subscriber, event, payload: endpointPayload(event, endpoint, at, details) });
  }
  const action = event === "webhook_endpoint.disabled" ? "Webhooks:DisableAutomatically" : "Webhooks:EnableAfterAutomaticDisable";
  await deps.audit?.({ action, endpointId, summary: { name: endpoint.name, state: event === "webhook_endpoint.disabled" ? "disabled_automatically" : "active", ...(details.reason && { reason: details.reason }) } });
}

/** A new endpoint and its lifecycle actor. */
export async function createEndpoint(deps: OperationDeps, input: WebhookEndpointCreate) {
  const created = await deps.endpoints.create(input);
  await deps.lifecycles.start(created.endpoint);
  return created;
}

/** `disabled` given (true or false) is told to the endpoint's lifecycle: disabling, or enabling (also one disabled automatically). */
export async function updateEndpoint(deps: OperationDeps, id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
  const updated = await deps.endpoints.update(id, input);
  if (input.disabled !== undefined) await deps.lifecycles.tell(id, { type: input.disabled ? "disable" : "enable", at: deps.clock.now() });
  return deps.endpoints.get(id) ?? updated;
}

/**
 * Re-sends, in order, every message to the endpoint first sent since `since` whose latest
 * delivery failed or was skipped, under its original webhook-id: how many were queued.
 */
export async function recoverEndpoint(deps: OperationDeps, id: string, since: string): Promise<{ queued: number; webhook_ids: string[] }> {
  const endpoint = deps.endpoints.require(id);
  if (endpoint.disabled || endpoint.state === "disabled_automatically" || endpoint.state === "disabled") {
    throw conflict(`webhook endpoint '${endpoint.name}' is ${endpoint.state.replace("_", " ")}; enable it (disabled: false) before recovering its messages`);
  }
  const messages = await deps.history.notArrivedSince(id, parseTimestamp(since));
  for (const message of messages) {
    await deps.runner.enqueue({ webhookId: message.webhookId, endpoint, event: message.event, payload: message.payload, jobId: message.jobId ?? undefined, redeliveryOf: message.id });
  }
  return { queued: messages.length, webhook_ids: messages.map((message) => message.webhookId) };
}

/** One attempt, no retries (sent even to a disabled endpoint, so it can be checked before it is enabled). */
export async function sendTestDelivery({ endpoints, history, runner, clock }: OperationDeps, endpointId: string): Promise<DeliveryView> {
  const endpoint = endpoints.require(endpointId);
  const payload = testPayload(endpoint, new Date(clock.now()));
  const deliveryId = (await runner.enqueue({ webhookId: generateWebhookId(), endpoint, event: TEST_EVENT, payload, retries: "none" }))!;
  await runner.settled(deliveryId);
  return (await history.view(deliveryId))!;
}

/** Spec 4.15: the same message under its original webhook-id, as a new delivery record. */
export async function redeliver({ endpoints, history, runner, redelivering }: OperationDeps, deliveryId: string): Promise<{ webhookId: string; deliveryId: string }> {
  const original = await history.get(deliveryId);
  if (!original) throw notFound(`webhook delivery '${deliveryId}' does not exist`, "caller_delivery_not_found");
  const { webhookId, event, payload, jobId } = original;
  const inFlight = () => conflict(`webhook delivery '${deliveryId}' is still in flight; redeliver it once it has finished`);
  // Checked and claimed with no await between: of requests at the same moment, the others see the claim before the history shows the new delivery.
  if (redelivering.has(webhookId)) throw inFlight();
  redelivering.add(webhookId);
  try {
    if (await history.isInFlight(webhookId)) throw inFlight();
    const endpoint = endpoints.require(original.endpointId);
    if (endpoint.disabled) throw conflict(`webhook endpoint '${endpoint.name}' is disabled`);
    const id = (await runner.enqueue({ webhookId, endpoint, event, payload, jobId: jobId ?? undefined, redeliveryOf: original.id }))!;
    return { webhookId, deliveryId: id };
  } finally {
    redelivering.delete(webhookId);
  }
}

/** Its pending deliveries and its lifecycle stop first; their history goes with the endpoint. */
export async function removeEndpoint({ endpoints, runner, lifecycles }: OperationDeps, id: string): Promise<void> {
  endpoints.require(id);
  await runner.discardEndpoint(id);
  await lifecycles.discard(id);
  await endpoints.remove(id);
}
