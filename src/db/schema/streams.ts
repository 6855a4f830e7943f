import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Resumable streams (`x-gw-resumable`): one row per stream, what a reader on any node needs
 * without the actor (its owner, how far it got, whether it ended), written along with the
 * `stream` actor's snapshot and with each batch of its events.
 */
export const resumableStreams = sqliteTable(
  "resumable_streams",
  {
    id: text("id").primaryKey(),
    /** Hash of the virtual key that started it (null without one): only that caller reads it. */
    owner: text("owner"),
    /** The request whose reply it keeps: its log row. */
    requestId: text("request_id").notNull(),
    /** The operation and wire format of the reply, for the error event a failed stream ends with. */
    operation: text("operation").notNull(),
    format: text("format").notNull(),
    contentType: text("content_type").notNull(),
    /** The actor's state: upstream_open, completed, failed or cancelled. */
    state: text("state").notNull(),
    error: text("error"),
    /** Events and bytes stored so far. */
    events: integer("events").notNull().default(0),
    bytes: integer("bytes").notNull().default(0),
    /** How many times a reader resumed it (GET /v1/streams/{id}). */
    resumes: integer("resumes").notNull().default(0),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    endedAt: integer("ended_at", { mode: "timestamp_ms" }),
  },
  (table) => [index("resumable_streams_created_idx").on(table.createdAt)],
);

/** A stream's events in order, each as the SSE event it was sent as (without its `id:` line). */
export const resumableStreamEvents = sqliteTable(
  "resumable_stream_events",
  {
    streamId: text("stream_id").notNull(),
    seq: integer("seq").notNull(),
    event: text("event").notNull(),
  },
  (table) => [primaryKey({ columns: [table.streamId, table.seq] })],
);

export type ResumableStreamRow = typeof resumableStreams.$inferSelect;
