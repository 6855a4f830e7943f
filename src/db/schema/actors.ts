import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The persisted snapshot of every live xstate actor (async jobs, webhook deliveries), written
 * after each transition and read back on start. `state` is the machine's state value as JSON,
 * kept beside the snapshot so an operator can see where each actor stands without decoding it.
 * Several nodes on one database share the rows through leases (actors/runtime/snapshot-store.ts).
 */
export const actorSnapshots = sqliteTable(
  "actor_snapshots",
  {
    kind: text("kind").notNull(),
    id: text("id").notNull(),
    state: text("state").notNull(),
    snapshot: text("snapshot", { mode: "json" }).$type<unknown>().notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    /** The node running the actor while `leaseUntil` lies ahead; another node may take it over after. */
    owner: text("owner"),
    leaseUntil: integer("lease_until"),
  },
  (table) => [primaryKey({ columns: [table.kind, table.id] }), index("actor_snapshots_kind_state_idx").on(table.kind, table.state)],
);

export type ActorSnapshotRow = typeof actorSnapshots.$inferSelect;

/**
 * Events for actors another node runs (a cancel that reached a node not running the job): the
 * node running the actor takes them and sends them to it; a `discard` stops it and deletes it.
 */
export const actorSignals = sqliteTable(
  "actor_signals",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    actorId: text("actor_id").notNull(),
    signal: text("signal", { mode: "json" }).$type<ActorSignal>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("actor_signals_kind_idx").on(table.kind)],
);

/** An event for the actor's machine (JSON), or `discard`, which the runtime itself carries out. */
export interface ActorSignal {
  type: string;
}

/** Where an actor's lifecycle stands: running, finished in a final state, failed, or stopped from outside. */
export type ActorStatus = "active" | "done" | "error" | "stopped";

/**
 * One row per actor ever started, kept (with its transitions) until `history_retention_days`
 * after it ended: the list and counts of GET /api/actors. Written in the same transaction as
 * the snapshot, so it never names a state the snapshot is not in.
 */
export const actorInstances = sqliteTable(
  "actor_instances",
  {
    kind: text("kind").notNull(),
    id: text("id").notNull(),
    /** The state value as xstate writes it (JSON). */
    state: text("state", { mode: "json" }).$type<unknown>().notNull(),
    /** The same, flattened to dotted paths (`completed.retained`), several joined by `,` for parallel states. */
    statePath: text("state_path").notNull(),
    status: text("status").$type<ActorStatus>().notNull(),
    /** The node that made the last transition. */
    node: text("node").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    endedAt: integer("ended_at", { mode: "timestamp_ms" }),
    /** The earliest timer the actor had armed at its last transition (a retry, an expiry). */
    nextTimerAt: integer("next_timer_at", { mode: "timestamp_ms" }),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.id] }),
    index("actor_instances_kind_state_idx").on(table.kind, table.statePath),
    index("actor_instances_ended_idx").on(table.endedAt),
  ],
);

export type ActorInstanceRow = typeof actorInstances.$inferSelect;

/** Every transition of every actor, in the order made; `seq` orders them across nodes for the live stream. */
export const actorTransitions = sqliteTable(
  "actor_transitions",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    actorId: text("actor_id").notNull(),
    /** JSON state values; `from` is null for the actor's first state. */
    from: text("from_state", { mode: "json" }).$type<unknown>(),
    event: text("event").notNull(),
    to: text("to_state", { mode: "json" }).$type<unknown>().notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    node: text("node").notNull(),
  },
  (table) => [index("actor_transitions_actor_idx").on(table.kind, table.actorId, table.seq)],
);

export type ActorTransitionRow = typeof actorTransitions.$inferSelect;
