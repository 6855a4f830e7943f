import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Conversations the gateway keeps itself (OpenAI's Conversations API, for deployments whose
 * providers keep none): a conversation names a list of items that Responses calls naming it
 * read before their own input and add their input and output to. Kept until deleted, as OpenAI's.
 */
export const conversations = sqliteTable("conversations", {
  /** `conv_` and a UUID in hex: shorter than OpenAI's own, so the two never mix. */
  id: text("id").primaryKey(),
  /** The virtual key that created it; only that caller sees it. Null when the caller had none. */
  owner: text("owner"),
  metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

export const conversationItems = sqliteTable(
  "conversation_items",
  {
    /** The order items were added in. */
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    conversationId: text("conversation_id").notNull(),
    /** The item's `id`: the one it came with, or one the gateway gave it. */
    itemId: text("item_id").notNull(),
    item: text("item", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (table) => [index("conversation_items_conversation_idx").on(table.conversationId, table.seq), index("conversation_items_item_idx").on(table.conversationId, table.itemId)],
);

export type ConversationRow = typeof conversations.$inferSelect;
