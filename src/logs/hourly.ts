import { and, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type requestLogGroupHours, requestLogHours, requestLogs } from "../db/schema/logs";
import { total, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import type { TimeWindow } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

export const HOUR_MS = 3_600_000;

/**
 * What every roll-up keeps of a group of logs, in its table's column order after the group:
 * sums, not averages, so that hours add up. The logs_rollups migration repeats it (backfill).
 */
export const ROLLED_UP_FIGURES = `count(*), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(reasoning_tokens), sum(total_tokens),
    coalesce(sum(cost), 0), sum(latency_ms), sum(cache_hit_type IS NOT NULL), coalesce(sum(time_to_first_token_ms), 0), count(time_to_first_token_ms)`;

const SUMMED = ["requests", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "total_tokens", "cost", "latency_ms", "cache_hits", "first_token_ms", "first_token_requests"];

/** A roll-up's upsert: a group already there adds the batch's figures to its own. */
export const ADD_TO_ROLLED_UP = `ON CONFLICT DO UPDATE SET ${SUMMED.map((column) => `${column} = ${column} + excluded.${column}`).join(", ")}`;

/**
 * Rolls the `?` rows inserted just before it (the last rowids) into request_log_hours, inside
 * the batch's transaction. It must run before the full-text indexing, which reads
 * last_insert_rowid() too; the hourly table is WITHOUT ROWID, so this insert leaves it alone.
 */
export const ROLL_UP_INSERTED = `WITH inserted AS MATERIALIZED (SELECT last_insert_rowid() AS last)
  INSERT INTO request_log_hours
  SELECT timestamp / ${HOUR_MS} * ${HOUR_MS}, provider, model, status, ${ROLLED_UP_FIGURES}
  FROM request_logs, inserted
  WHERE seq > inserted.last - ? AND seq <= inserted.last AND internal_caller IS NULL
  GROUP BY 1, 2, 3, 4
  ${ADD_TO_ROLLED_UP}`;

/** Client traffic filtered by nothing but its window and `lists`, the only ones a roll-up may keep apart. */
export function onlyCoarseFilters(filters: LogFilters, lists: readonly string[]): boolean {
  return (
    filters.origin === "client" &&
    Object.keys(filters.lists).every((name) => lists.includes(name)) &&
    [filters.latency, filters.cost, filters.tokens].every((bounds) => bounds.min === undefined && bounds.max === undefined) &&
    !filters.missingCostOnly &&
    !filters.parentRequestId &&
    !filters.sessionId &&
    !filters.contentSearch &&
    !filters.requestId &&
    !filters.rootsOnly &&
    !filters.withoutMetadataKeys?.length
  );
}

/** Filters the hourly table can answer: client traffic by window, providers, models and statuses, nothing else. */
export function answeredByHours(filters: LogFilters): boolean {
  return onlyCoarseFilters(filters, ["providers", "models", "status"]) && Object.keys(filters.metadata).length === 0;
}

export interface Hours {
  from?: number;
  until?: number;
}

/** The whole hours inside a window (`from` inclusive, `until` exclusive; open when absent), and the partial hours at its edges. */
export function splitWindow({ start, end }: TimeWindow): { hours?: Hours; edges: TimeWindow[] } {
  const startMs = start?.getTime();
  const endMs = end?.getTime();
  const from = startMs === undefined ? undefined : Math.ceil(startMs / HOUR_MS) * HOUR_MS;
  const until = endMs === undefined ? undefined : Math.floor((endMs + 1) / HOUR_MS) * HOUR_MS;
  if (from !== undefined && until !== undefined && from >= until) return { edges: [{ start, end }] };
  const edges: TimeWindow[] = [];
  if (startMs !== undefined && startMs < from!) edges.push({ start, end: new Date(from! - 1) });
  if (endMs !== undefined && until! <= endMs) edges.push({ start: new Date(until!), end });
  return { hours: { from, until }, edges };
}

/** The conditions on a roll-up's hour column for `hours`. */
export function withinHours(column: SQLiteColumn, hours: Hours): SQL[] {
  return [...(hours.from === undefined ? [] : [gte(column, hours.from)]), ...(hours.until === undefined ? [] : [lt(column, hours.until)])];
}

/** A table of hourly figures: request_log_hours, or request_log_group_hours. */
export type RollUpTable = typeof requestLogHours | typeof requestLogGroupHours;

/** Where a window's whole hours are read: a roll-up table and the filters as conditions on it. */
export interface HourlySource {
  table: RollUpTable;
  where(hours: Hours): SQL | undefined;
}

/** Usage summed, not averaged, so that parts of a window add up. */
export type Summed = Omit<Usage, "averageLatency"> & { latencySum: number };
/** What a series shows beside usage: cache hits, and time to first token as a total over a count. */
export type StreamSummed = Summed & { cacheHits: number; firstTokenSum: number; firstTokenRequests: number };

/** The same figures summed from a roll-up table and from the logs themselves. */
export interface Sums<Row> {
  hourly(table: RollUpTable): { [Name in keyof Row]: SQL<number> };
  raw: { [Name in keyof Row]: SQL<number> };
}

const usageSumsOf = (table: RollUpTable) => ({
  requests: total(table.requests),
  successes: total(sql`iif(${table.status} = 'success', ${table.requests}, 0)`),
  errors: total(sql`iif(${table.status} = 'error', ${table.requests}, 0)`),
  inputTokens: total(table.inputTokens),
  outputTokens: total(table.outputTokens),
  cachedTokens: total(table.cachedTokens),
  reasoningTokens: total(table.reasoningTokens),
  totalTokens: total(table.totalTokens),
  cost: total(table.cost),
  latencySum: total(table.latencyMs),
});

const { averageLatency: _average, ...countsOfLogs } = usageColumns;
const rawSums = { ...countsOfLogs, latencySum: total(requestLogs.latencyMs) };

export const USAGE_SUMS: Sums<Summed> = { hourly: usageSumsOf, raw: rawSums };

export const STREAM_SUMS: Sums<StreamSummed> = {
  hourly: (table) => ({ ...usageSumsOf(table), cacheHits: total(table.cacheHits), firstTokenSum: total(table.firstTokenMs), firstTokenRequests: total(table.firstTokenRequests) }),
  raw: {
    ...rawSums,
    cacheHits: total(sql`${requestLogs.cacheHitType} IS NOT NULL`),
    firstTokenSum: total(requestLogs.timeToFirstTokenMs),
    firstTokenRequests: sql<number>`count(${requestLogs.timeToFirstTokenMs})`.mapWith(Number),
  },
};

/** What usage is grouped by, as a roll-up table and the log table each express it; `rawCondition` leaves out logs no group holds. */
export interface Grouping<Key extends Record<string, unknown>> {
  hourly: { [Name in keyof Key]: SQL<Key[Name]> | SQLiteColumn };
  raw: { [Name in keyof Key]: SQL<Key[Name]> | SQLiteColumn };
  rawCondition?: SQL;
}

export const BY_MODEL: Grouping<{ provider: string; model: string }> = {
  hourly: { provider: requestLogHours.provider, model: requestLogHours.model },
  raw: { provider: requestLogs.provider, model: requestLogs.model },
};

export const TOTAL: Grouping<Record<string, never>> = { hourly: {}, raw: {} };

/** Buckets of `sizeMs` (a whole number of hours) aligned to the epoch, keyed by their start; `hour` is the roll-up's hour column. */
export function byBucket(sizeMs: number, hour: SQLiteColumn = requestLogHours.hour): Grouping<{ bucket: number }> {
  // Inlined, not bound: a bound JS number may arrive as REAL and turn the division fractional.
  const width = sql.raw(String(sizeMs));
  return {
    hourly: { bucket: sql<number>`(${hour} / ${width}) * ${width}`.mapWith(Number) },
    raw: { bucket: sql<number>`(${requestLogs.timestamp} / ${width}) * ${width}`.mapWith(Number) },
  };
}

/** Both groupings at once: each group of `first` split by `second`. */
export function groupedBoth<A extends Record<string, unknown>, B extends Record<string, unknown>>(first: Grouping<A>, second: Grouping<B>): Grouping<A & B> {
  return {
    hourly: { ...first.hourly, ...second.hourly } as Grouping<A & B>["hourly"],
    raw: { ...first.raw, ...second.raw } as Grouping<A & B>["raw"],
    rawCondition: and(first.rawCondition, second.rawCondition),
  };
}

function hourlyConditions(filters: LogFilters, hours: Hours): SQL | undefined {
  const { providers, models, status } = filters.lists;
  return and(
    ...withinHours(requestLogHours.hour, hours),
    ...(providers ? [inArray(requestLogHours.provider, providers)] : []),
    ...(models ? [inArray(requestLogHours.model, models)] : []),
    ...(status ? [inArray(requestLogHours.status, status as Array<"processing" | "success" | "error">)] : []),
  );
}

/** request_log_hours, for filters `answeredByHours` accepts. */
export const hoursOf = (filters: LogFilters): HourlySource => ({ table: requestLogHours, where: (hours) => hourlyConditions(filters, hours) });

export const usageOf = ({ latencySum, ...sums }: Summed): Usage => ({ ...sums, averageLatency: sums.requests === 0 ? 0 : latencySum / sums.requests });

function addTo(into: Record<string, number>, part: Record<string, number>) {
  for (const name of Object.keys(part)) into[name]! += part[name]!;
}

/**
 * `sums` in `window` per group: whole hours from `source`, the partial hours at the edges from
 * the logs, the parts added up; every hour from the logs when there is no source.
 */
export async function sumAcrossHours<Key extends Record<string, unknown>, Row extends Record<string, number>>(
  db: ReadDatabase,
  filters: LogFilters,
  window: TimeWindow,
  source: HourlySource | undefined,
  grouping: Grouping<Key>,
  sums: Sums<Row>,
): Promise<Array<{ key: Key; sums: Row }>> {
  const { hours, edges } = source ? splitWindow(window) : { hours: undefined, edges: [window] };
  const fromHours = hours && source ? db.select({ ...grouping.hourly, ...sums.hourly(source.table) }).from(source.table as typeof requestLogHours).where(source.where(hours)).groupBy(...Object.values(grouping.hourly)) : [];
  const fromLogs = edges.map((edge) =>
    db
      .select({ ...grouping.raw, ...sums.raw })
      .from(requestLogs)
      .where(and(logConditions(filters, edge), grouping.rawCondition))
      .groupBy(...Object.values(grouping.raw)),
  );
  const parts = await Promise.all([fromHours, ...fromLogs]);
  const groups = new Map<string, { key: Key; sums: Row }>();
  for (const rows of parts) {
    for (const row of rows as Array<Record<string, unknown>>) {
      const key = Object.fromEntries(Object.keys(grouping.raw).map((name) => [name, row[name]])) as Key;
      const part = Object.fromEntries(Object.keys(sums.raw).map((name) => [name, row[name]])) as Row;
      // A group with no rows still answers one row of zeros when nothing is grouped.
      if (part.requests === 0) continue;
      const id = JSON.stringify(key);
      const group = groups.get(id);
      if (group) addTo(group.sums, part);
      else groups.set(id, { key, sums: part });
    }
  }
  return [...groups.values()];
}

/** Usage in `window` per group, for filters `answeredByHours` accepts. */
export async function hourlyUsage<Key extends Record<string, unknown>>(db: ReadDatabase, filters: LogFilters, window: TimeWindow, grouping: Grouping<Key>): Promise<Array<Key & Usage>> {
  const groups = await sumAcrossHours(db, filters, window, hoursOf(filters), grouping, USAGE_SUMS);
  return groups.map(({ key, sums }) => ({ ...key, ...usageOf(sums) }));
}
