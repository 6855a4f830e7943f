import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
    /**
     * The stored response this one continued (`previous_response_id`). Each row keeps only what its
     * own request added, so a long conversation is stored once, not once per turn.
     */
    previousId: text("previous_id"),
    /** The input items its own request added; with no `previousId`, every input item the model answered. */
    input: text("input", { mode: "json" }).$type<unknown[]>().notNull(),
    /** The response object as the client received it. */
    response: text("response", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    index("stored_responses_expiry_idx").on(table.expiresAt),
    index("stored_responses_previous_idx").on(table.previousId).where(sql`${table.previousId} IS NOT NULL`),
  ],
);

export type StoredResponseRow = typeof storedResponses.$inferSelect;

/**
 * Responses a provider is still writing in the background (`background: true` on OpenAI's API).
 * Their usage is known only once one of them is read back finished: that read is what gets billed.
 */
export const backgroundResponses = sqliteTable("background_responses", {
  /** The provider's response id. */
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  /** The model the response was created with, for pricing. */
  model: text("model").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * Which key created an object a provider keeps (a response, a conversation, a vector store...):
 * a provider's keys may belong to different accounts (OpenAI projects), which do not see each
 * other's objects, so later calls on the object go with the same key.
 */
export const providerObjectKeys = sqliteTable(
  "provider_object_keys",
  {
    provider: text("provider").notNull(),
    /** The object's id, or the last segment of its name (Gemini's `files/{id}`). */
    objectId: text("object_id").notNull(),
    keyId: text("key_id").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.objectId] }), index("provider_object_keys_created_idx").on(table.createdAt)],
);
