import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Responses the gateway answered for providers without a Responses API, kept so that
 * `previous_response_id` and `GET /v1/responses/{id}` work on them as on OpenAI's own.
 */
export const storedResponses = sqliteTable(
  "stored_responses",
  {
    /** `resp_` and the id of the request that produced it. */
    id: text("id").primaryKey(),
    /** The virtual key that created it; only that caller reads it. Null when the caller had none. */
    owner: text("owner"),
    /** The input items the model answered: those of every earlier response of the chain, then its own. */
    input: text("input", { mode: "json" }).$type<unknown[]>().notNull(),
    /** The response object as the client received it. */
    response: text("response", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("stored_responses_expiry_idx").on(table.expiresAt)],
);

export type StoredResponseRow = typeof storedResponses.$inferSelect;
