import { and, eq, gte, inArray, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { requestLogMetadata, requestLogs } from "../db/schema/logs";
import type { Bounds, ListFilter, LogFilters } from "./filters";
import { contentMatches } from "./full-text";
import type { TimeWindow } from "./time-window";

const LIST_COLUMNS: Record<Exclude<ListFilter, JsonListFilter>, AnySQLiteColumn> = {
  providers: requestLogs.provider,
  models: requestLogs.model,
  aliases: requestLogs.alias,
  status: requestLogs.status,
  objects: requestLogs.object,
  selected_key_ids: requestLogs.selectedKeyId,
  conversation_ids: requestLogs.conversationId,
  virtual_key_ids: requestLogs.virtualKeyId,
  team_ids: requestLogs.teamId,
  customer_ids: requestLogs.customerId,
  user_ids: requestLogs.userId,
  business_unit_ids: requestLogs.businessUnitId,
  project_ids: requestLogs.projectId,
  routing_rule_ids: requestLogs.routingRuleId,
  routing_engine_used: requestLogs.routingEngine,
  stop_reasons: requestLogs.stopReason,
  cache_hit_types: requestLogs.cacheHitType,
  regions: requestLogs.region,
  status_codes: requestLogs.statusCode,
  error_types: requestLogs.errorType,
};

// tool_call_names, guardrails and metadata are JSON columns; json_each reads them without path quoting.
// The first term of each is the condition of its partial index: only the rows that called a tool or met a guardrail are read.
const calledAnyTool = (names: string[]) => sql`${requestLogs.toolCallNames} <> '[]' AND EXISTS (SELECT 1 FROM json_each(${requestLogs.toolCallNames}) WHERE value IN ${names})`;
const guardrailFired = (field: "guardrail" | "action", values: string[]) =>
  sql`${requestLogs.guardrails} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(${requestLogs.guardrails}) WHERE json_extract(value, ${`$.${field}`}) IN ${values})`;
const JSON_LISTS = {
  tool_call_names: calledAnyTool,
  guardrails: (values: string[]) => guardrailFired("guardrail", values),
  guardrail_actions: (values: string[]) => guardrailFired("action", values),
};
type JsonListFilter = keyof typeof JSON_LISTS;
/**
 * By the pairs' table (kept by triggers), not each row's JSON: a value no row has is answered
 * without reading the rows, and only the window's pairs are read (a common value's pairs of all
 * time would each fetch their row).
 */
function hasMetadata(key: string, value: string, { start, end }: TimeWindow) {
  const pairs = requestLogMetadata;
  const within = [start ? sql` AND ${pairs.timestamp} >= ${start.getTime()}` : sql``, end ? sql` AND ${pairs.timestamp} <= ${end.getTime()}` : sql``];
  return sql`${requestLogs.seq} IN (SELECT ${pairs.seq} FROM ${pairs} WHERE ${pairs.key} = ${key} AND ${pairs.value} = ${value}${within[0]}${within[1]})`;
}
const lacksMetadataKeys = (keys: readonly string[]) => sql`NOT EXISTS (SELECT 1 FROM json_each(${requestLogs.metadata}) WHERE key IN ${keys})`;

function withinBounds(column: AnySQLiteColumn, bounds: Bounds): SQL[] {
  return [bounds.min === undefined ? undefined : gte(column, bounds.min), bounds.max === undefined ? undefined : lte(column, bounds.max)].filter((condition) => condition !== undefined);
}

function withinWindow(window: TimeWindow): SQL[] {
  return [window.start ? gte(requestLogs.timestamp, window.start) : undefined, window.end ? lte(requestLogs.timestamp, window.end) : undefined].filter((condition) => condition !== undefined);
}

function listConditions(lists: LogFilters["lists"]): SQL[] {
  return Object.entries(lists).map(([name, values]) => (name in JSON_LISTS ? JSON_LISTS[name as JsonListFilter](values) : inArray(LIST_COLUMNS[name as keyof typeof LIST_COLUMNS], values)));
}

/**
 * Client traffic, by rowid: the gateway's own calls are few and have a partial index, read once
 * into a set, so aggregates still read only their covering indexes (`internal_caller IS NULL`
 * would fetch every row).
 */
export const notGatewayCall = (seq: AnySQLiteColumn = requestLogs.seq) => sql`${seq} NOT IN (SELECT seq FROM request_logs WHERE internal_caller IS NOT NULL)`;

function identityConditions(filters: LogFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.origin === "client") conditions.push(notGatewayCall());
  if (filters.origin === "gateway") conditions.push(isNotNull(requestLogs.internalCaller));
  if (filters.requestId) conditions.push(eq(requestLogs.id, filters.requestId));
  if (filters.parentRequestId) conditions.push(eq(requestLogs.parentRequestId, filters.parentRequestId));
  if (filters.sessionId) conditions.push(eq(requestLogs.sessionId, filters.sessionId));
  if (filters.rootsOnly) conditions.push(isNull(requestLogs.parentRequestId));
  return conditions;
}

/** The WHERE clause of a filtered read; `window` replaces the filters' own (for the previous period). */
export function logConditions(filters: LogFilters, window: TimeWindow = filters.window): SQL | undefined {
  return and(
    ...withinWindow(window),
    ...listConditions(filters.lists),
    ...identityConditions(filters),
    ...withinBounds(requestLogs.latencyMs, filters.latency),
    ...withinBounds(requestLogs.cost, filters.cost),
    ...withinBounds(requestLogs.totalTokens, filters.tokens),
    ...(filters.missingCostOnly ? [isNull(requestLogs.cost)] : []),
    ...Object.entries(filters.metadata).map(([key, value]) => hasMetadata(key, value, window)),
    ...(filters.withoutMetadataKeys?.length ? [lacksMetadataKeys(filters.withoutMetadataKeys)] : []),
    ...(filters.contentSearch ? [contentMatches(filters.contentSearch)] : []),
  );
}
