import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A2A agents the gateway fronts. The upstream's extra headers (credentials, usually) are one
 * sealed JSON object; the agent card is the upstream's own, as last fetched.
 */
export const a2aAgents = sqliteTable("a2a_agents", {
  name: text("name").primaryKey(),
  url: text("url").notNull(),
  /**
   * Whoever last wrote its address may point the gateway at loopback and private addresses (the
   * admin, or anyone under network.allow_private_addresses): every connection checks it.
   * Rows from before the outbound address policy keep their reach.
   */
  privateNetworkAllowed: integer("private_network_allowed", { mode: "boolean" }).notNull().default(true),
  description: text("description").notNull().default(""),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  sealedHeaders: text("sealed_headers").notNull(),
  agentCard: text("agent_card", { mode: "json" }).$type<Record<string, unknown> | null>(),
  cardFetchedAt: integer("card_fetched_at", { mode: "timestamp_ms" }),
  cardError: text("card_error"),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * Every A2A task seen through the gateway, as its `a2a-task` actor last left it. The actor's
 * own snapshot lives in `actor_snapshots` while the task is live; this row outlives it as the
 * task's history. Task ids are the upstream's, unique per agent only.
 */
export const a2aTasks = sqliteTable(
  "a2a_tasks",
  {
    agentName: text("agent_name").notNull(),
    taskId: text("task_id").notNull(),
    contextId: text("context_id"),
    state: text("state").notNull(),
    /** False once the task reached a terminal state (completed, canceled, failed, rejected). */
    live: integer("live", { mode: "boolean" }).notNull(),
    /** The virtual key that first reached the task, when the caller used one. */
    virtualKeyId: text("virtual_key_id"),
    /** The task's status object as the upstream last sent it. */
    status: text("status", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    transitions: text("transitions", { mode: "json" }).$type<Array<{ state: string; at: string }>>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.agentName, table.taskId] }),
    index("a2a_tasks_live_idx").on(table.live, table.updatedAt),
    index("a2a_tasks_agent_idx").on(table.agentName, table.updatedAt),
  ],
);

export type A2AAgentRow = typeof a2aAgents.$inferSelect;
export type A2ATaskRow = typeof a2aTasks.$inferSelect;
