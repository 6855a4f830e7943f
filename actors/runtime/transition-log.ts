import { and, eq } from "drizzle-orm";
import type { StateValue } from "xstate";
import type { Database } from "../../src/db/client";
import { type ActorStatus, actorInstances, actorTransitions } from "../../src/db/schema";
import type { Write } from "./snapshot-store";

/** One transition of one actor: the state it left (null for its first), the event that moved it, the state it entered. */
export interface Transition {
  kind: string;
  id: string;
  from: StateValue | null;
  event: string;
  to: StateValue;
  status: ActorStatus;
  at: Date;
  /** The earliest timer the actor armed (epoch ms). */
  nextTimerAt?: number;
}

/** A state value as dotted paths, one per active leaf region: `completed.retained`; a parallel state gives several. */
export function statePaths(value: StateValue): string[] {
  if (typeof value === "string") return [value];
  return Object.entries(value).flatMap(([key, child]) => {
    const inner = child === undefined ? [] : statePaths(child);
    return inner.length === 0 ? [key] : inner.map((path) => `${key}.${path}`);
  });
}

export const statePathOf = (value: StateValue) => statePaths(value).join(",");

/**
 * The rows that make an actor's lifecycle visible: its transitions, and its instance row (where
 * it stands). They are returned as writes for the caller to commit with the snapshot, so the
 * history and the snapshot land in one transaction or not at all.
 */
export class TransitionLog {
  constructor(
    private readonly db: Database,
    private readonly node: string,
    /** Read on every transition, so the setting applies at once. */
    private readonly recording: () => boolean = () => true,
  ) {}

  get enabled(): boolean {
    return this.recording();
  }

  record(transition: Transition): Write[] {
    if (!this.recording()) return [];
    const { kind, id, from, event, to, status, at } = transition;
    const where = {
      state: to,
      statePath: statePathOf(to),
      status,
      node: this.node,
      updatedAt: at,
      endedAt: status === "active" ? null : at,
      nextTimerAt: transition.nextTimerAt === undefined ? null : new Date(transition.nextTimerAt),
    };
    return [
      this.db.insert(actorTransitions).values({ kind, actorId: id, from, event, to, at, node: this.node }),
      this.db
        .insert(actorInstances)
        .values({ kind, id, createdAt: at, ...where })
        .onConflictDoUpdate({ target: [actorInstances.kind, actorInstances.id], set: where }),
    ];
  }

  /** The timer an actor armed without moving (its first state's, once started). */
  timer(kind: string, id: string, nextTimerAt: number | undefined): Write[] {
    if (!this.recording()) return [];
    const at = nextTimerAt === undefined ? null : new Date(nextTimerAt);
    return [this.db.update(actorInstances).set({ nextTimerAt: at }).where(and(eq(actorInstances.kind, kind), eq(actorInstances.id, id)))];
  }

  /** An actor that ended outside its machine: stopped (discarded) or failed, in `value` when known. */
  ended(kind: string, id: string, status: Exclude<ActorStatus, "active" | "done">, event: string, at: Date, value?: StateValue): Write[] {
    if (!this.recording()) return [];
    const ending = this.db
      .update(actorInstances)
      .set({ status, node: this.node, updatedAt: at, endedAt: at, nextTimerAt: null })
      .where(and(eq(actorInstances.kind, kind), eq(actorInstances.id, id), eq(actorInstances.status, "active")));
    if (value === undefined) return [ending];
    return [this.db.insert(actorTransitions).values({ kind, actorId: id, from: value, event, to: value, at, node: this.node }), ending];
  }
}
