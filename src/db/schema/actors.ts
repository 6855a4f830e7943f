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
