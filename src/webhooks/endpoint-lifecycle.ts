import type { StateValue } from "xstate";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { EndpointHealthPolicy, WebhookEndpointContext, WebhookEndpointEvent } from "../../actors/webhook-endpoint";
import type { EndpointState } from "../db/schema";
import type { EndpointStateColumns, WebhookEndpoint, WebhookEndpointStore } from "./endpoint-store";

const KIND = "webhook-endpoint";
/** How often the node running an endpoint's actor takes the outcomes other nodes' deliveries left for it. */
const SIGNAL_CHECK_MS = 250;

export type EndpointAnnouncement = "webhook_endpoint.disabled" | "webhook_endpoint.enabled";

export interface EndpointLifecycleDeps {
  snapshots: ActorSnapshotStore;
  clock: Clock;
  endpoints: WebhookEndpointStore;
  /** Tells the other endpoints and the audit log that an endpoint was disabled or enabled again automatically. */
  announce: (endpointId: string, event: EndpointAnnouncement, context: WebhookEndpointContext) => Promise<void>;
}

export const policyOf = (endpoint: WebhookEndpoint): EndpointHealthPolicy => ({
  failingAfterFailedAttempts: endpoint.failingAfterFailedAttempts,
  disableAfterFailingMs: endpoint.disableAfterFailingSeconds * 1000,
  disableAfterFailedMessages: endpoint.disableAfterFailedMessages,
});

function stateColumnsOf(snapshot: { value: StateValue; context: WebhookEndpointContext }): EndpointStateColumns {
  return {
    state: snapshot.value as EndpointState,
    stateSince: new Date(snapshot.context.stateSince),
    failingSince: snapshot.context.failingSince === undefined ? null : new Date(snapshot.context.failingSince),
    disabledReason: snapshot.context.disabledReason ?? null,
  };
}

/**
 * Each webhook endpoint's lifecycle as a durable `webhook-endpoint` actor, run by one node at a
 * time (the lease), told of every node's delivery outcomes (through the database when it runs
 * elsewhere), its state mirrored into the endpoint's row in the same commit as its snapshot.
 */
export class EndpointLifecycles {
  private readonly actors: DurableActors<ActorSnapshotStore["machines"]["webhook-endpoint"]>;

  constructor(private readonly deps: EndpointLifecycleDeps) {
    const announce = (event: EndpointAnnouncement) => ({ context }: { context: WebhookEndpointContext }) => {
      deps.announce(context.endpointId, event, context).catch((error) => console.error(`webhook endpoint ${context.endpointId}: announcing ${event} failed`, error));
    };
    const machine = deps.snapshots.machines[KIND].provide({
      actions: { announceDisabled: announce("webhook_endpoint.disabled"), announceEnabled: announce("webhook_endpoint.enabled") },
    });
    this.actors = new DurableActors({
      kind: KIND,
      machine,
      store: deps.snapshots,
      clock: deps.clock,
      signalCheckMs: SIGNAL_CHECK_MS,
      mirror: (id, snapshot, at) => [deps.endpoints.mirrorState(id, stateColumnsOf(snapshot), at)],
      // Shown (and acted on) by this node only once it is durable: a crash never undoes what was seen.
      committed: (id, snapshot) => deps.endpoints.applyState(id, stateColumnsOf(snapshot)),
    });
  }

  /** Starts the actor of a new endpoint (disabled at once when created disabled). */
  async start(endpoint: WebhookEndpoint): Promise<void> {
    const actor = await this.actors.spawn(endpoint.id, { endpointId: endpoint.id, createdAt: endpoint.createdAt.getTime(), policy: policyOf(endpoint) });
    if (endpoint.disabled) actor.send({ type: "disable", at: this.deps.clock.now() });
  }

  /** Sends `event` to the endpoint's actor, here or on the node running it. */
  tell(endpointId: string, event: WebhookEndpointEvent): Promise<void> {
    return this.actors.signal(endpointId, event);
  }

  discard(endpointId: string): Promise<void> {
    return this.actors.discard(endpointId);
  }

  /** Resumes this node's endpoint actors, and starts one for every endpoint that has none (made before endpoints had lifecycles). */
  async resume(): Promise<number> {
    const resumed = await this.actors.resume();
    for (const endpoint of this.deps.endpoints.list()) {
      if (this.actors.get(endpoint.id) || (await this.deps.snapshots.load(KIND, endpoint.id)) !== undefined) continue;
      await this.start(endpoint);
    }
    return resumed;
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }
}
