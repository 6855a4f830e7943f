import { and, asc, count, desc, eq, getTableColumns, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { type RequestLogRow, requestLogMetadata, requestLogs } from "../db/schema/logs";
import { notFound } from "../http/errors";
import { logConditions } from "./conditions";
import { LogFilterFields, type LogFilters, NON_NEGATIVE_INTEGER } from "./filters";
import type { ReadDatabase } from "./worker-reader";

const SORT_COLUMNS = {
  timestamp: requestLogs.timestamp,
  latency: requestLogs.latencyMs,
  tokens: requestLogs.totalTokens,
  cost: requestLogs.cost,
};

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** GET /api/logs: the filters plus paging and sorting. */
export const LogListQuery = t.Object(
  {
    ...LogFilterFields,
    limit: t.Optional(t.String({ pattern: "^0*([1-9]\\d{0,2}|1000)$", description: `1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}` })),
    offset: t.Optional(NON_NEGATIVE_INTEGER),
    sort_by: t.Optional(t.Union(Object.keys(SORT_COLUMNS).map((name) => t.Literal(name as keyof typeof SORT_COLUMNS)))),
    order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
    include_total: t.Optional(t.Boolean({ description: "default true; false answers total: null without counting every match" })),
  },
  { additionalProperties: true },
);
export type LogListQuery = Static<typeof LogListQuery>;

export interface Page {
  limit: number;
  offset: number;
  sortBy: keyof typeof SORT_COLUMNS;
  order: "asc" | "desc";
  /** False skips the count of every match: a page of a large table need not wait for it. */
  withTotal?: boolean;
}

export function readPage(query: LogListQuery): Page {
  return {
    limit: query.limit ? Number(query.limit) : DEFAULT_PAGE_SIZE,
    offset: query.offset ? Number(query.offset) : 0,
    sortBy: query.sort_by ?? "timestamp",
    order: query.order ?? "desc",
    withTotal: query.include_total ?? true,
  };
}

const { requestContent: _request, responseContent: _response, ...summaryColumns } = getTableColumns(requestLogs);
/** A log's columns but its content, which lists leave out (the detail has it). */
export const LOG_SUMMARY_COLUMNS = summaryColumns;
type LogSummaryRow = Omit<RequestLogRow, "requestContent" | "responseContent">;

/** A log row as the API shows it; content only where the row was read with it. */
export function logView(row: LogSummaryRow & Partial<Pick<RequestLogRow, "requestContent" | "responseContent">>) {
  const view = {
    id: row.id,
    parent_request_id: row.parentRequestId,
    timestamp: row.timestamp.toISOString(),
    object: row.object,
    provider: row.provider,
    model: row.model,
    alias: row.alias,
    selected_key_id: row.selectedKeyId,
    conversation_id: row.conversationId,
    complexity_tier: row.complexityTier,
    complexity_score: row.complexityScore,
    virtual_key_id: row.virtualKeyId,
    virtual_key_name: row.virtualKeyName,
    team_id: row.teamId,
    customer_id: row.customerId,
    user_id: row.userId,
    business_unit_id: row.businessUnitId,
    project_id: row.projectId,
    routing_rule_id: row.routingRuleId,
    routing_rule_name: row.routingRuleName,
    routing_engine_used: row.routingEngine,
    status: row.status,
    status_code: row.statusCode,
    error_type: row.errorType,
    error_message: row.errorMessage,
    stop_reason: row.stopReason,
    tool_call_names: row.toolCallNames,
    cache_hit_type: row.cacheHitType,
    guardrails: row.guardrails ?? [],
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cached_tokens: row.cachedTokens,
    reasoning_tokens: row.reasoningTokens,
    total_tokens: row.totalTokens,
    cost: row.cost,
    latency: row.latencyMs,
    time_to_first_token: row.timeToFirstTokenMs,
    stream: row.stream,
    session_id: row.sessionId,
    region: row.region,
    internal_caller: row.internalCaller,
    metadata: row.metadata,
    attempts: row.attempts,
  };
  if (!("requestContent" in row)) return view;
  return { ...view, request_content: row.requestContent ? JSON.parse(row.requestContent) : null, response_content: row.responseContent ?? null };
}

/** Missing costs sort last either way; every other sort column is NOT NULL. Ties in seq order. */
function orderingOf(page: Page): SQL[] {
  const order = (column: AnySQLiteColumn) => sql`${column} ${sql.raw(page.order)}${sql.raw(column === requestLogs.cost ? " nulls last" : "")}`;
  return [order(SORT_COLUMNS[page.sortBy]), order(requestLogs.seq)];
}

/**
 * The page's rowids, picked on rowids alone, so a sort over many matches never carries whole rows.
 * Filtered by a metadata pair in time order, the pair's entries are read in key order instead
 * (key, value, timestamp, seq): the newest matches come first with no sort of every match.
 */
export function pageOfSeqs(db: ReadDatabase, filters: LogFilters, page: Page) {
  const [pair, ...otherPairs] = Object.entries(filters.metadata);
  if (!pair || page.sortBy !== "timestamp") return db.select({ seq: requestLogs.seq }).from(requestLogs).where(logConditions(filters)).orderBy(...orderingOf(page)).limit(page.limit).offset(page.offset);
  const pairs = requestLogMetadata;
  const direction = page.order === "asc" ? asc : desc;
  const { start, end } = filters.window;
  return db
    .select({ seq: pairs.seq })
    .from(pairs)
    .innerJoin(requestLogs, eq(requestLogs.seq, pairs.seq))
    .where(
      and(
        eq(pairs.key, pair[0]),
        eq(pairs.value, pair[1]),
        ...(start ? [gte(pairs.timestamp, start.getTime())] : []),
        ...(end ? [lte(pairs.timestamp, end.getTime())] : []),
        logConditions({ ...filters, metadata: Object.fromEntries(otherPairs) }),
      ),
    )
    .orderBy(direction(pairs.timestamp), direction(pairs.seq))
    .limit(page.limit)
    .offset(page.offset);
}

export async function searchLogs(db: ReadDatabase, filters: LogFilters, page: Page) {
  const where = logConditions(filters);
  const ordering = orderingOf(page);
  const pageSeqs = pageOfSeqs(db, filters, page);
  const pageRows = db
    .select(LOG_SUMMARY_COLUMNS)
    .from(requestLogs)
    .where(inArray(requestLogs.seq, pageSeqs))
    .orderBy(...ordering);
  // One snapshot: a page read before a batch lands and a total read after it would disagree.
  const [rows, total] = page.withTotal === false ? [await pageRows, null] : await db.batch([pageRows, db.select({ total: count() }).from(requestLogs).where(where)]).then(([found, [totals]]) => [found, totals?.total ?? 0] as const);
  return {
    logs: rows.map(logView),
    count: rows.length,
    total,
    limit: page.limit,
    offset: page.offset,
    sort_by: page.sortBy,
    order: page.order,
  };
}

export async function getLog(db: ReadDatabase, id: string) {
  const [row] = await db.select().from(requestLogs).where(eq(requestLogs.id, id)).limit(1);
  if (!row) throw notFound(`log '${id}' not found`, "caller_log_not_found");
  return logView(row);
}
