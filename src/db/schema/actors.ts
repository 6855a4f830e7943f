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
