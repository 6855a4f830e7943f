import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The dashboard agent's configuration: one row (id 1) holding the resolved settings as JSON,
 * replaced whole on every write (spec 4.1 rule 1). The shape is `StoredWarpConfig` in
 * src/warp/config/schema.ts; it carries key references, never a credential.
 */
export const warpConfig = sqliteTable("warp_config", {
  id: integer("id").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** One message of a saved chat, in the canonical (OpenAI chat) shape the agent sends upstream. */
export interface WarpStoredMessage {
  role: "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/**
 * Saved agent chats, each private to its owner (`<principal type>:<principal id>`).
 * `updated_at` is the last turn: retention counts from it.
 */
export const warpConversations = sqliteTable(
  "warp_conversations",
  {
    id: text("id").primaryKey(),
    owner: text("owner").notNull(),
    title: text("title").notNull(),
    messages: text("messages", { mode: "json" }).$type<WarpStoredMessage[]>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("warp_conversations_owner_idx").on(table.owner, table.updatedAt), index("warp_conversations_updated_idx").on(table.updatedAt)],
);

/**
 * Log embeddings for semantic search: one vector per (namespace, log). `embedding` is a libSQL
 * vector (written with `vector32`, compared with `vector_distance_cos`); `space` names the
 * embedding model and dimension that produced it (`provider/model#dimension`), so a search only
 * compares vectors of one space. No foreign key to request_logs: the log writer and retention
 * must never wait on this table; searches join the live logs and a sweep drops orphans.
 */
export const warpLogVectors = sqliteTable(
  "warp_log_vectors",
  {
    namespace: text("namespace").notNull(),
    logId: text("log_id").notNull(),
    space: text("space").notNull(),
    embedding: blob("embedding", { mode: "buffer" }).notNull(),
    indexedAt: integer("indexed_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.namespace, table.logId] }), index("warp_log_vectors_space_idx").on(table.namespace, table.space), index("warp_log_vectors_log_idx").on(table.logId)],
);

export type WarpConversationRow = typeof warpConversations.$inferSelect;
