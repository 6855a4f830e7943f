import { fromPromise, toPromise } from "xstate";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import { RateGate } from "../../actors/runtime/rate-gate";
import { KeyedSlots } from "../../actors/runtime/slots";
import { type AttemptResult, type RetryPolicy, webhookDeliveryMachine } from "../../actors/webhook-delivery";
import type { DeliveryStatus } from "../db/schema";
import type { DeliveryHistory } from "./delivery-history";
import type { WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";
import { type Exchange, exchange, recordExchange, type SenderDeps } from "./sender";

export interface NewMessage {
  /** Given for job notifications, so notifying twice finds the first delivery. */
  deliveryId?: string;
  webhookId: string;
  endpoint: WebhookEndpoint;
  event: string;
  jobId?: string;
  payload: string;
  redeliveryOf?: string;
  /** Test deliveries make one attempt only. */
  retries?: "endpoint" | "none";
}

const retryPolicyOf = (endpoint: WebhookEndpoint, retries: NewMessage["retries"] = "endpoint"): RetryPolicy => ({
  maxRetries: retries === "none" ? 0 : endpoint.maxRetries,
  backoffInitialMs: endpoint.retryBackoffInitialSeconds * 1000,
  backoffMaxMs: endpoint.retryBackoffMaxSeconds * 1000,
});

/** What the endpoint's lifecycle hears of its deliveries. */
export interface DeliveryOutcomes {
  attempted(endpointId: string, result: AttemptResult): void;
  /** A message's delivery failed for good (failed or exhausted). */
  failed(endpointId: string): void;
}

const FAILED_FOR_GOOD: ReadonlySet<string> = new Set(["failed", "exhausted"]);

/**
 * Runs webhook deliveries as durable actors: at most max_concurrent_deliveries HTTP exchanges
 * per endpoint at once on this node, and at most max_deliveries_per_second attempts started,
 * each waiting its turn in order; every state mirrored into the delivery's history row.
 */
export class DeliveryRunner {
  private readonly slots: KeyedSlots;
  private readonly rate: RateGate;
  private readonly actors: DurableActors<typeof webhookDeliveryMachine>;

  constructor(
    private readonly deps: SenderDeps,
    outcomes: DeliveryOutcomes,
  ) {
    this.slots = new KeyedSlots((endpointId) => deps.endpoints.get(endpointId)?.maxConcurrentDeliveries ?? 1);
    this.rate = new RateGate(deps.clock);
    const machine = deps.snapshots.machines["webhook-delivery"].provide({
      actors: {
        acquireSlot: fromPromise(({ input, signal }) => this.slots.acquire(input.endpointId, input.deliveryId, signal)),
        attempt: fromPromise(async ({ input, signal }) => {
          // A delivery restored mid-attempt takes its slot again before sending.
          await this.slots.acquire(input.endpointId, input.deliveryId, signal);
          let sent: Exchange;
          try {
            await this.rate.take(input.endpointId, deps.endpoints.get(input.endpointId)?.maxDeliveriesPerSecond ?? 0, signal);
            sent = await exchange(deps, input, signal);
          } finally {
            this.slots.release(input.endpointId, input.deliveryId);
          }
          const result = await recordExchange(deps, sent);
          if (sent.endpointId !== undefined) outcomes.attempted(sent.endpointId, result);
          return result;
        }),
      },
    });
    this.actors = new DurableActors({
      kind: "webhook-delivery",
      machine,
      store: deps.snapshots,
      clock: deps.clock,
      mirror: (id, snapshot, at) => {
        if (snapshot.status === "done" && FAILED_FOR_GOOD.has(snapshot.value as string)) outcomes.failed(snapshot.context.endpointId);
        return [deps.history.mirror(id, snapshot.value as DeliveryStatus, snapshot.context, at)];
      },
    });
  }

  /** Deliveries this node still holds: not final yet, or final with their row not yet removed. */
  get pending(): number {
    return this.actors.size;
  }

  /** The history row of a new message: queued for its actor, or skipped (and so already complete). */
  private record(id: string, message: NewMessage, status: "queued" | "skipped", now: Date) {
    return this.deps.history.insert({
      id,
      webhookId: message.webhookId,
      endpointId: message.endpoint.id,
      event: message.event,
      jobId: message.jobId ?? null,
      payload: message.payload,
      status,
      redeliveryOf: message.redeliveryOf ?? null,
      createdAt: now,
      updatedAt: now,
      ...(status === "skipped" ? { completedAt: now } : {}),
    });
  }

  /** Records the delivery and starts its actor: its id, or undefined when that delivery already existed. */
  async enqueue(message: NewMessage): Promise<string | undefined> {
    const id = message.deliveryId ?? `dlv_${crypto.randomUUID()}`;
    if (message.deliveryId && (this.actors.get(id) || (await this.deps.history.get(id)))) return undefined;
    const now = new Date(this.deps.clock.now());
    const record = this.record(id, message, "queued", now);
    const input = { deliveryId: id, endpointId: message.endpoint.id, createdAt: now.getTime(), ...retryPolicyOf(message.endpoint, message.retries) };
    await this.actors.spawn(id, input, [record]);
    return id;
  }

  /** Records a message its endpoint takes none of now (disabled automatically): kept as skipped, for a later recover. */
  async skip(message: NewMessage): Promise<string | undefined> {
    const id = message.deliveryId ?? `dlv_${crypto.randomUUID()}`;
    if (message.deliveryId && (await this.deps.history.get(id))) return undefined;
    const now = new Date(this.deps.clock.now());
    const record = this.record(id, message, "skipped", now);
    await this.deps.snapshots.commit([record]);
    return id;
  }

  /** Resolves once the delivery reached a final state and it is written (test deliveries answer with the outcome). */
  async settled(deliveryId: string): Promise<void> {
    const actor = this.actors.get(deliveryId);
    if (actor) await toPromise(actor);
    await this.deps.snapshots.idle();
  }

  /** Stops and forgets the deliveries of a deleted endpoint (their history went with it). */
  async discardEndpoint(endpointId: string): Promise<void> {
    const doomed = [...this.actors.entries()].filter(([, actor]) => actor.getSnapshot().context.endpointId === endpointId).map(([id]) => id);
    await Promise.all(doomed.map((id) => this.actors.discard(id)));
  }

  resume(): Promise<number> {
    return this.actors.resume();
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }
}
