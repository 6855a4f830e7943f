import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Where each configured log sink stands in request_logs: `after_seq` is the last row it was
 * given (delivered, or passed over by its filter); the node holding the sink's `log-sink`
 * actor's lease advances it once the sink accepted a batch, only from the value it read
 * (src/sinks/cursor-store.ts). The figures beside it are what GET /api/log-sinks and /metrics show.
 */
export const logSinkCursors = sqliteTable("log_sink_cursors", {
  name: text("name").primaryKey(),
  afterSeq: integer("after_seq").notNull(),
  /** When the last row delivered was logged. */
  lastRowAt: integer("last_row_at", { mode: "timestamp_ms" }),
  /** When the sink last accepted a batch. */
  lastDeliveredAt: integer("last_delivered_at", { mode: "timestamp_ms" }),
  deliveredRows: integer("delivered_rows").notNull().default(0),
  deliveredBatches: integer("delivered_batches").notNull().default(0),
  /** Every attempt the sink did not accept, and those since its last accepted one. */
  failedAttempts: integer("failed_attempts").notNull().default(0),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  /** Why the last attempt failed (a status, a connection error); never a secret. */
  lastError: text("last_error"),
  lastFailureAt: integer("last_failure_at", { mode: "timestamp_ms" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

export type LogSinkCursorRow = typeof logSinkCursors.$inferSelect;

/**
 * Log sinks added through the API (those of `log_sinks` in the configuration are not here):
 * their settings as the configuration would write them, less the HTTP signing secret and header
 * values, which are sealed together in `sealed_secrets`. Every node reloads the table on change.
 */
export const logSinks = sqliteTable("log_sinks", {
  name: text("name").primaryKey(),
  type: text("type", { enum: ["http", "file"] }).notNull(),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  sealedSecrets: text("sealed_secrets"),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export type LogSinkRow = typeof logSinks.$inferSelect;
