import { fromPromise } from "xstate";
import type { NotificationAttemptInput, NotificationAttemptResult, NotificationFacts } from "../../actors/alert-notification";
import type { RetryPolicy } from "../../actors/webhook-delivery";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { AlertScope, AlertSeverity } from "../db/schema/alerts";
import type { AlertNotice } from "./channels/notice";

const KIND = "alert-notification";

/** Six attempts over about 12 minutes (30 s, 1, 2, 4, then 5 minutes apart): a receiver restarting for a deploy still gets the page. */
export const NOTIFICATION_RETRIES: RetryPolicy = { maxRetries: 5, backoffInitialMs: 30_000, backoffMaxMs: 300_000 };

export interface NotificationDeliveriesDeps {
  snapshots: ActorSnapshotStore;
  clock: Clock;
  /** Sends the notification once and records the outcome in the rule's history. */
  attempt(input: NotificationAttemptInput): Promise<NotificationAttemptResult>;
}

/** The notice as the actor keeps it: JSON, times as epoch ms. */
export function storedNotice(notice: AlertNotice & { status: NotificationFacts["status"] }): NotificationFacts {
  return { ...notice, since: notice.since.getTime(), at: notice.at.getTime() };
}

export function restoredNotice(facts: NotificationFacts): AlertNotice {
  return { ...facts, severity: facts.severity as AlertSeverity, scope: facts.scope as AlertScope, since: new Date(facts.since), at: new Date(facts.at) };
}

/**
 * Each notification of a firing or resolved rule on each of its channels as a durable
 * `alert-notification` actor (actors/alert-notification.ts): persisted before its first
 * attempt, retried with backoff, resumed after a restart by the node that sent it (or the one
 * that takes its lease over), and removed once sent or given up.
 */
export class NotificationDeliveries {
  private readonly actors: DurableActors<ActorSnapshotStore["machines"]["alert-notification"]>;

  constructor(private readonly deps: NotificationDeliveriesDeps) {
    const machine = deps.snapshots.machines[KIND].provide({
      actors: { attempt: fromPromise(({ input }: { input: NotificationAttemptInput }) => deps.attempt(input)) },
    });
    this.actors = new DurableActors({ kind: KIND, machine, store: deps.snapshots, clock: deps.clock });
  }

  /** One id per firing, status and channel: the same notification asked for twice is one actor. */
  async send(channelId: string, facts: NotificationFacts): Promise<void> {
    const id = `${facts.ruleId}:${facts.status}:${facts.since}:${facts.at}:${channelId}`;
    if (this.actors.get(id)) return;
    await this.actors.spawn(id, { channelId, facts, createdAt: this.deps.clock.now(), ...NOTIFICATION_RETRIES });
  }

  async resume(): Promise<void> {
    await this.actors.resume();
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }
}
