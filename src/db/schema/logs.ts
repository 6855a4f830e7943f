import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Attempt, GuardrailVerdict } from "./types";

const USAGE = ["inputTokens", "outputTokens", "cachedTokens", "reasoningTokens", "totalTokens", "cost", "latencyMs"] as const;
const usageColumns = (table: Record<(typeof USAGE)[number], AnySQLiteColumn>) => USAGE.map((name) => table[name]);

/**
 * One inference request. `seq` is the rowid the full-text index `request_logs_fts` (an FTS5
 * table from a hand-written migration, see src/logs/full-text.ts) is keyed by, and what log sinks'
 * cursors and the live feed follow: AUTOINCREMENT, so a deleted row's number is never handed out
 * again (migration 0033). `id` is the request id clients see.
 */
export const requestLogs = sqliteTable(
  "request_logs",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull().unique(),
    parentRequestId: text("parent_request_id"),
    timestamp: integer("timestamp", { mode: "timestamp_ms" }).notNull(),
    object: text("object").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    alias: text("alias"),
    selectedKeyId: text("selected_key_id"),
    /** The conversation the request belongs to, when its provider keeps conversations on one key. */
    conversationId: text("conversation_id"),
    /** The complexity tier a routing rule read (computed only then), and its score from 0 to 1. */
    complexityTier: text("complexity_tier"),
    complexityScore: real("complexity_score"),
    virtualKeyId: text("virtual_key_id"),
    virtualKeyName: text("virtual_key_name"),
    teamId: text("team_id"),
    customerId: text("customer_id"),
    userId: text("user_id"),
    businessUnitId: text("business_unit_id"),
    projectId: text("project_id"),
    routingRuleId: text("routing_rule_id"),
    routingRuleName: text("routing_rule_name"),
    routingEngine: text("routing_engine_used"),
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    statusCode: integer("status_code"),
    errorType: text("error_type"),
    errorMessage: text("error_message"),
    stopReason: text("stop_reason"),
    toolCallNames: text("tool_call_names", { mode: "json" }).$type<string[]>().notNull(),
    cacheHitType: text("cache_hit_type"),
    /** What guardrails found and did (guardrail, check, stage, action, match count); never the matched text. */
    guardrails: text("guardrails", { mode: "json" }).$type<GuardrailVerdict[]>(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens").notNull(),
    totalTokens: integer("total_tokens").notNull(),
    /** USD; null when pricing did not know the model. */
    cost: real("cost"),
    latencyMs: real("latency_ms").notNull(),
    timeToFirstTokenMs: real("time_to_first_token_ms"),
    stream: integer("stream", { mode: "boolean" }).notNull(),
    sessionId: text("session_id"),
    /** GATEWAY_REGION of the node that served the request; null when it names none. */
    region: text("region"),
    /**
     * Which part of the gateway made the request for itself (`warp`, `guardrail`, ...); null for
     * client traffic. The hourly tables hold client traffic only (src/logs/hourly.ts).
     */
    internalCaller: text("internal_caller"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
    attempts: text("attempts", { mode: "json" }).$type<Attempt[]>().notNull(),
    /** JSON of the request body with secrets removed; null when content logging is off. */
    requestContent: text("request_content"),
    /** The assembled response text; null when content logging is off or there was none. */
    responseContent: text("response_content"),
  },
  // Every index slows ingestion, so the two big ones cover the dashboard's aggregates: over a
  // time range (stats, histogram) and per model (the model filter, each ranking row), SQLite
  // reads only the index and never the wide rows with their content.
  (table) => [
    index("request_logs_time_usage_idx").on(table.timestamp, table.status, table.provider, table.model, ...usageColumns(table)),
    index("request_logs_model_usage_idx").on(table.model, table.timestamp, table.provider, table.status, ...usageColumns(table)),
    index("request_logs_virtual_key_idx").on(table.virtualKeyId, table.timestamp),
    // Most requests have no parent or session: partial indexes skip them.
    index("request_logs_parent_idx").on(table.parentRequestId).where(sql`${table.parentRequestId} IS NOT NULL`),
    index("request_logs_session_idx").on(table.sessionId).where(sql`${table.sessionId} IS NOT NULL`),
    // The logs page's status code and error type filters: a page newest first reads only matches.
    index("request_logs_status_code_idx").on(table.statusCode, table.timestamp),
    index("request_logs_error_type_idx").on(table.errorType, table.timestamp).where(sql`${table.errorType} IS NOT NULL`),
    index("request_logs_internal_idx").on(table.timestamp).where(sql`${table.internalCaller} IS NOT NULL`),
    index("request_logs_conversation_idx").on(table.conversationId).where(sql`${table.conversationId} IS NOT NULL`),
    index("request_logs_complexity_idx").on(table.complexityTier, table.timestamp).where(sql`${table.complexityTier} IS NOT NULL`),
    // The logs page's team, customer and provider key filters: a value few rows carry is read from its index, not by scanning every row.
    index("request_logs_team_idx").on(table.teamId, table.timestamp).where(sql`${table.teamId} IS NOT NULL`),
    index("request_logs_customer_idx").on(table.customerId, table.timestamp).where(sql`${table.customerId} IS NOT NULL`),
    index("request_logs_selected_key_idx").on(table.selectedKeyId, table.timestamp).where(sql`${table.selectedKeyId} IS NOT NULL`),
    // Few requests call tools or meet a guardrail: their filters read only those rows (src/logs/conditions.ts names these conditions).
    // The names are in the tool index too: a tool filter checks each candidate in the index, never reading the row.
    index("request_logs_tool_calls_idx").on(table.timestamp, table.toolCallNames).where(sql`${table.toolCallNames} <> '[]'`),
    index("request_logs_guardrails_idx").on(table.timestamp).where(sql`${table.guardrails} IS NOT NULL`),
  ],
);

export type RequestLogRow = typeof requestLogs.$inferSelect;
export type NewRequestLogRow = typeof requestLogs.$inferInsert;

/**
 * What each hourly roll-up keeps of a group's logs: sums, not averages, so that hours add up
 * (`latency_ms` is the total latency). The last three came with the logs_rollups migration, hence defaults.
 */
const rolledUpFigures = () => ({
  requests: integer("requests").notNull(),
  inputTokens: integer("input_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  reasoningTokens: integer("reasoning_tokens").notNull(),
  totalTokens: integer("total_tokens").notNull(),
  cost: real("cost").notNull(),
  latencyMs: real("latency_ms").notNull(),
  /** Requests answered from the gateway's cache. */
  cacheHits: integer("cache_hits").notNull().default(0),
  /** The total time to first token, over the `first_token_requests` that had one. */
  firstTokenMs: real("first_token_ms").notNull().default(0),
  firstTokenRequests: integer("first_token_requests").notNull().default(0),
});

/**
 * Usage per hour, provider, model and status, kept by the log writer in each batch's transaction
 * (src/logs/hourly.ts) and by a trigger on deletion (migration 0002). Dashboard aggregates over a
 * long window read whole hours here and only the partial hours at its edges from request_logs.
 * Sums, not averages, so that hours add up: `latency_ms` is the hour's total latency.
 */
export const requestLogHours = sqliteTable(
  "request_log_hours",
  {
    hour: integer("hour").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    ...rolledUpFigures(),
  },
  (table) => [primaryKey({ columns: [table.hour, table.provider, table.model, table.status] })],
);

/**
 * The figures of request_log_hours per hour, status and value of one grouping: `virtual_key`,
 * `team`, `customer`, `error_type`, `complexity_tier` (the column's value) or `metadata.<key>`
 * (each text value of that key), rows without a value left out. Kept like request_log_hours: by
 * the log writer in each batch's transaction (src/logs/group-hours.ts) and by a trigger on
 * deletion (the logs_rollups migration, WITHOUT ROWID). The series grouped by these, the virtual key
 * ranking and the stats of one team, key, customer or metadata value read whole hours here.
 */
export const requestLogGroupHours = sqliteTable(
  "request_log_group_hours",
  {
    grouping: text("grouping").notNull(),
    hour: integer("hour").notNull(),
    value: text("value").notNull(),
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    ...rolledUpFigures(),
  },
  // Grouping then hour: a window of one grouping is one range of the key.
  (table) => [primaryKey({ columns: [table.grouping, table.hour, table.value, table.status] })],
);

/**
 * How many requests of each hour and status fell in each latency bucket (src/logs/latency-histogram.ts),
 * kept beside request_log_hours by the log writer and a deletion trigger (migration 0005). Latency
 * percentiles over windows too long to sort every latency are read from here.
 */
export const requestLogLatencies = sqliteTable(
  "request_log_latencies",
  {
    hour: integer("hour").notNull(),
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    bucket: integer("bucket").notNull(),
    requests: integer("requests").notNull(),
  },
  // Bucket first: summing a window per bucket then reads the table in key order, with no sort.
  (table) => [primaryKey({ columns: [table.bucket, table.hour, table.status] })],
);

/**
 * Each metadata pair of each request log, by the log's timestamp and seq, kept by triggers on
 * request_logs as rows are inserted, updated and deleted (hand-written in migrations 0038 and
 * logs_rollups, WITHOUT ROWID like request_log_hours). A `metadata_<key>` filter reads the pairs' key
 * instead of every row's JSON, which over a million rows takes seconds; the logs page filtered by
 * a pair reads its newest matches in key order, with no sort.
 */
export const requestLogMetadata = sqliteTable(
  "request_log_metadata",
  {
    key: text("key").notNull(),
    value: text("value").notNull(),
    timestamp: integer("timestamp").notNull(),
    seq: integer("seq").notNull(),
    /** The log's status and latency: latency percentiles of a metadata value read them here, not from each log. */
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    latencyMs: real("latency_ms").notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.value, table.timestamp, table.seq] })],
);
