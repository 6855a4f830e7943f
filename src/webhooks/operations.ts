import { createHash } from "node:crypto";
import type { Clock } from "../../actors/runtime/clock";
import { conflict, notFound } from "../http/errors";
import type { DeliveryHistory, DeliveryView } from "./delivery-history";
import type { DeliveryRunner } from "./delivery-runner";
import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";
import { eventOf, type FinishedJob, jobPayload, TEST_EVENT, testPayload } from "./payload";
import { generateWebhookId } from "./signing";

export interface OperationDeps {
  endpoints: WebhookEndpointStore;
  history: DeliveryHistory;
  runner: DeliveryRunner;
  clock: Clock;
  /** Messages (webhook-ids) this node is re-queuing right now, between the in-flight check and the enqueue. */
  redelivering: Set<string>;
}

/** Ids derived from the job and the endpoint: notifying twice (after a restart) finds the first delivery. */
function jobDeliveryIds(job: FinishedJob, endpoint: WebhookEndpoint) {
  const digest = (purpose: string) => createHash("sha256").update(`${purpose}:${job.id}:${endpoint.id}:${eventOf(job)}`).digest("base64url").slice(0, 32);
  return { deliveryId: `dlv_${digest("delivery")}`, webhookId: `msg_${digest("message")}` };
}

/** The endpoint the job named, if it is enabled and subscribed; with none named, every enabled subscriber. */
function targetsOf({ endpoints }: OperationDeps, job: FinishedJob): WebhookEndpoint[] {
  const event = eventOf(job);
  if (job.webhook === undefined) return endpoints.subscribers(event);
  const named = endpoints.findByName(job.webhook);
  return named && !named.disabled && named.events.includes(event) ? [named] : [];
}

export async function notifyJobFinished(deps: OperationDeps, job: FinishedJob): Promise<void> {
  for (const endpoint of targetsOf(deps, job)) {
    await deps.runner.enqueue({ ...jobDeliveryIds(job, endpoint), endpoint, event: eventOf(job), jobId: job.id, payload: jobPayload(job, endpoint) });
  }
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

/** Its pending deliveries stop first; their history goes with the endpoint. */
export async function removeEndpoint({ endpoints, runner }: OperationDeps, id: string): Promise<void> {
  endpoints.require(id);
  await runner.discardEndpoint(id);
  await endpoints.remove(id);
}
