import { fromPromise, type StateValue } from "xstate";
import type { AlertEvaluation, AlertRuleContext, AlertRuleEvent, AlertTimings } from "../../actors/alert-rule";
import type { Clock } from "../../actors/runtime/clock";
import { DurableActors } from "../../actors/runtime/durable-actors";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { AlertState } from "../db/schema/alerts";
import type { AlertRule, AlertRuleStore, RuleStateColumns } from "./rule-store";

const KIND = "alert-rule";
/** How often the node running a rule's actor takes the events (silence, acknowledge, evaluate now) other nodes left for it. */
const SIGNAL_CHECK_MS = 250;

type RuleSnapshot = { value: StateValue; context: AlertRuleContext };

export interface RuleLifecycleDeps {
  snapshots: ActorSnapshotStore;
  clock: Clock;
  rules: AlertRuleStore;
  /** Reads the rule's figures and judges its condition; `holds: null` when it could not. */
  evaluate(ruleId: string): Promise<AlertEvaluation>;
  /** Sends the rule's notifications (not awaited by the machine): `firing` on entering it, `resolved` on leaving it. */
  notify(status: "firing" | "resolved", context: AlertRuleContext, at: number): void;
}

export const timingsOf = (rule: AlertRule): AlertTimings => ({ intervalMs: rule.intervalSeconds * 1000, forMs: rule.forSeconds * 1000, cooldownMs: rule.cooldownSeconds * 1000 });

/** The condition region's state as the rule's row keeps it. */
export function alertStateOf(value: StateValue): { state: AlertState; acknowledged: boolean } {
  const condition = (value as { condition: StateValue }).condition;
  if (typeof condition === "string") return { state: condition as AlertState, acknowledged: false };
  return { state: "firing", acknowledged: (condition as { firing?: string }).firing === "acknowledged" };
}

const dateOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms));

function stateColumnsOf(snapshot: RuleSnapshot): RuleStateColumns {
  const { context } = snapshot;
  return {
    state: alertStateOf(snapshot.value).state,
    stateSince: new Date(context.stateSince),
    lastEvaluatedAt: dateOrNull(context.lastEvaluatedAt),
    lastFigures: context.figures,
    silencedUntil: dateOrNull(context.silencedUntil),
    acknowledgedBy: context.acknowledgedBy ?? null,
    acknowledgedAt: dateOrNull(context.acknowledgedAt),
  };
}

/**
 * Each enabled alert rule as a durable `alert-rule` actor (actors/alert-rule.ts), run by one
 * node at a time (the lease): only that node evaluates the rule and sends its notifications.
 * The rule's state is mirrored into its row, and each change of state into its history, in the
 * same commit as the snapshot.
 */
export class RuleLifecycles {
  private readonly actors: DurableActors<ActorSnapshotStore["machines"]["alert-rule"]>;
  /** The state each live actor last mirrored: a history row is written when it changes. */
  private readonly mirrored = new Map<string, string>();

  constructor(private readonly deps: RuleLifecycleDeps) {
    const notify = (status: "firing" | "resolved") => ({ context, event }: { context: AlertRuleContext; event: AlertRuleEvent }) => deps.notify(status, context, "at" in event ? event.at : deps.clock.now());
    const machine = deps.snapshots.machines[KIND].provide({
      actions: { notifyFiring: notify("firing"), notifyResolved: notify("resolved") },
      actors: { evaluate: fromPromise(({ input }: { input: { ruleId: string } }) => deps.evaluate(input.ruleId)) },
    });
    this.actors = new DurableActors({
      kind: KIND,
      machine,
      store: deps.snapshots,
      clock: deps.clock,
      signalCheckMs: SIGNAL_CHECK_MS,
      mirror: (id, snapshot, at) => this.mirror(id, snapshot, at),
    });
  }

  async start(rule: AlertRule): Promise<void> {
    await this.actors.spawn(rule.id, { ruleId: rule.id, createdAt: this.deps.clock.now(), ...timingsOf(rule) });
  }

  /** Sends `event` to the rule's actor, here or on the node running it. */
  tell(ruleId: string, event: AlertRuleEvent): Promise<void> {
    return this.actors.signal(ruleId, event);
  }

  async discard(ruleId: string): Promise<void> {
    this.mirrored.delete(ruleId);
    await this.actors.discard(ruleId);
  }

  /** Resumes this node's rule actors, and starts one for every enabled rule that has none. */
  async resume(): Promise<void> {
    await this.actors.resume();
    for (const rule of await this.deps.rules.list()) {
      if (!rule.enabled || this.actors.get(rule.id) || (await this.deps.snapshots.load(KIND, rule.id)) !== undefined) continue;
      await this.start(rule);
    }
  }

  stop(): Promise<void> {
    return this.actors.stop();
  }

  private mirror(id: string, snapshot: RuleSnapshot, at: Date) {
    const columns = stateColumnsOf(snapshot);
    const { acknowledged } = alertStateOf(snapshot.value);
    const label = `${columns.state}${acknowledged ? ":acknowledged" : ""}`;
    const before = this.mirrored.get(id);
    this.mirrored.set(id, label);
    const writes = [this.deps.rules.mirrorState(id, columns)];
    // A restored actor's first snapshot is where it already stood: no history row.
    if (before === undefined || before === label) return writes;
    const note = acknowledged && before.startsWith("firing") ? `acknowledged by ${snapshot.context.acknowledgedBy}` : null;
    const fromState = before.split(":")[0]!;
    return [...writes, this.deps.rules.recordHistory({ ruleId: id, at, fromState, toState: columns.state, figures: snapshot.context.figures, note })];
  }
}
