import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { StateValue } from "xstate";
import type { Database } from "../../src/db/client";
import { type ActorStatus, actorInstances, actorTransitions } from "../../src/db/schema";
import type { Write } from "./snapshot-store";

type TransitionRow = typeof actorTransitions.$inferInsert;
type InstanceRow = typeof actorInstances.$inferInsert;

/** One transition's rows, kept as values: a commit writes the rows of all its transitions in two statements. */
export class HistoryRows {
  constructor(
    readonly transition: TransitionRow,
    readonly instance: InstanceRow,
  ) {}
}

/** A write to the history tables that is not a transition's rows (a timer, an end): it keeps its place among them. */
export class HistoryStatement {
  constructor(readonly write: Write) {}
}

export type HistoryWrite = HistoryRows | HistoryStatement;

export const isHistoryWrite = (write: unknown): write is HistoryWrite => write instanceof HistoryRows || write instanceof HistoryStatement;

/** Rows one multi-row statement takes: well under SQLite's bound on variables (32,766). */
const ROWS_PER_STATEMENT = 200;

/** An instance row's columns but its key and creation time, set from the row being inserted when the instance exists. */
const INSTANCE_UPDATE: Record<string, SQL> = Object.fromEntries(
  Object.entries(getTableColumns(actorInstances))
    .filter(([field]) => field !== "kind" && field !== "id" && field !== "createdAt")
    .map(([field, column]) => [field, sql.raw(`excluded."${column.name}"`)]),
);

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
    /** This node's id as it stands: taken when the node joins, after the log is made. */
    private readonly nodeId: () => string,
    /** Read on every transition, so the setting applies at once. */
    private readonly recording: () => boolean = () => true,
  ) {}

  get enabled(): boolean {
    return this.recording();
  }

  record(transition: Transition): HistoryWrite[] {
    if (!this.recording()) return [];
    const { kind, id, from, event, to, status, at } = transition;
    const node = this.nodeId();
    const nextTimerAt = transition.nextTimerAt === undefined ? null : new Date(transition.nextTimerAt);
    return [
      new HistoryRows(
        { kind, actorId: id, from, event, to, at, node },
        { kind, id, createdAt: at, state: to, statePath: statePathOf(to), status, node, updatedAt: at, endedAt: status === "active" ? null : at, nextTimerAt },
      ),
    ];
  }

  /**
   * The statements for history writes in the order they were made: the rows of consecutive
   * transitions go in one insert into each table. Under load a commit carries the transitions of
   * many actors, and one statement for them all costs far less than two each.
   */
  statements(writes: readonly HistoryWrite[]): Write[] {
    const statements: Write[] = [];
    let rows: HistoryRows[] = [];
    const flush = () => {
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
        statements.push(
          this.db.insert(actorTransitions).values(chunk.map((row) => row.transition)),
          // Within one statement, a later row for the same actor updates the one before it.
          this.db
            .insert(actorInstances)
            .values(chunk.map((row) => row.instance))
            .onConflictDoUpdate({ target: [actorInstances.kind, actorInstances.id], set: INSTANCE_UPDATE }),
        );
      }
      rows = [];
    };
    for (const write of writes) {
      if (write instanceof HistoryRows) rows.push(write);
      else {
        flush();
        statements.push(write.write);
      }
    }
    flush();
    return statements;
  }

  /** The timer an actor armed without moving (its first state's, once started). */
  timer(kind: string, id: string, nextTimerAt: number | undefined): HistoryWrite[] {
    if (!this.recording()) return [];
    const at = nextTimerAt === undefined ? null : new Date(nextTimerAt);
    return [new HistoryStatement(this.db.update(actorInstances).set({ nextTimerAt: at }).where(and(eq(actorInstances.kind, kind), eq(actorInstances.id, id))))];
  }

  /** An actor that ended outside its machine: stopped (discarded) or failed, in `value` when known. */
  ended(kind: string, id: string, status: Exclude<ActorStatus, "active" | "done">, event: string, at: Date, value?: StateValue): HistoryWrite[] {
    if (!this.recording()) return [];
    const ending = new HistoryStatement(
      this.db
        .update(actorInstances)
        .set({ status, node: this.nodeId(), updatedAt: at, endedAt: at, nextTimerAt: null })
        .where(and(eq(actorInstances.kind, kind), eq(actorInstances.id, id), eq(actorInstances.status, "active"))),
    );
    if (value === undefined) return [ending];
    return [new HistoryStatement(this.db.insert(actorTransitions).values({ kind, actorId: id, from: value, event, to: value, at, node: this.nodeId() })), ending];
  }
}
