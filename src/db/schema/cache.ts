import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Cached responses, stored as the client received them (its wire format, a stream's bytes).
 * `request_hash` is the exact-match key; `params_hash` is the same request without its
 * conversation, which a semantic match must share. `embedding` is a libSQL vector (written
 * with `vector32`), compared with `vector_distance_cos` among rows of one embedding model.
 */
export const responseCache = sqliteTable(
  "response_cache",
  {
    /** The id of the request whose response was stored. */
    id: text("id").primaryKey(),
    cacheKey: text("cache_key").notNull(),
    requestHash: text("request_hash").notNull(),
    paramsHash: text("params_hash").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    stream: integer("stream", { mode: "boolean" }).notNull(),
    status: integer("status").notNull(),
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
    body: blob("body", { mode: "buffer" }).notNull(),
    embedding: blob("embedding", { mode: "buffer" }),
    embeddingModel: text("embedding_model"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    index("response_cache_exact_idx").on(table.cacheKey, table.requestHash),
    index("response_cache_params_idx").on(table.cacheKey, table.paramsHash),
    index("response_cache_expiry_idx").on(table.expiresAt),
  ],
);

export type ResponseCacheRow = typeof responseCache.$inferSelect;
