import { and, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { requestLogHours, requestLogs } from "../db/schema/logs";
import { total, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import type { TimeWindow } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

export const HOUR_MS = 3_600_000;

const SUMMED = ["input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "total_tokens", "cost", "latency_ms"] as const;

/**
 * Rolls the `?` rows inserted just before it (the last rowids) into request_log_hours, inside
 * the batch's transaction. It must run before the full-text indexing, which reads
 * last_insert_rowid() too; the hourly table is WITHOUT ROWID, so this insert leaves it alone.
 */
export const ROLL_UP_INSERTED = `WITH inserted AS MATERIALIZED (SELECT last_insert_rowid() AS last)
  INSERT INTO request_log_hours
  SELECT timestamp / ${HOUR_MS} * ${HOUR_MS}, provider, model, status, count(*), sum(input_tokens), sum(output_tokens),
    sum(cached_tokens), sum(reasoning_tokens), sum(total_tokens), coalesce(sum(cost), 0), sum(latency_ms)
  FROM request_logs, inserted
  WHERE seq > inserted.last - ? AND seq <= inserted.last AND internal_caller IS NULL
  GROUP BY 1, 2, 3, 4
  ON CONFLICT DO UPDATE SET requests = requests + excluded.requests, ${SUMMED.map((column) => `${column} = ${column} + excluded.${column}`).join(", ")}`;

/** Filters the hourly table can answer: client traffic by window, providers, models and statuses, nothing else. */
export function answeredByHours(filters: LogFilters): boolean {
  return (
    filters.origin === "client" &&
    Object.keys(filters.lists).every((name) => name === "providers" || name === "models" || name === "status") &&
    [filters.latency, filters.cost, filters.tokens].every((bounds) => bounds.min === undefined && bounds.max === undefined) &&
    !filters.missingCostOnly &&
    !filters.parentRequestId &&
    !filters.sessionId &&
    !filters.contentSearch &&
    !filters.requestId &&
    !filters.rootsOnly &&
    Object.keys(filters.metadata).length === 0 &&
    !filters.withoutMetadataKeys?.length
  );
}

/** The whole hours inside a window (`from` inclusive, `until` exclusive; open when absent), and the partial hours at its edges. */
export function splitWindow({ start, end }: TimeWindow): { hours?: { from?: number; until?: number }; edges: TimeWindow[] } {
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

/** Usage summed, not averaged, so that parts of a window add up. */
type Summed = Omit<Usage, "averageLatency"> & { latencySum: number };

const hourlySums = {
  requests: total(requestLogHours.requests),
  successes: total(sql`iif(${requestLogHours.status} = 'success', ${requestLogHours.requests}, 0)`),
  errors: total(sql`iif(${requestLogHours.status} = 'error', ${requestLogHours.requests}, 0)`),
  inputTokens: total(requestLogHours.inputTokens),
  outputTokens: total(requestLogHours.outputTokens),
  cachedTokens: total(requestLogHours.cachedTokens),
  reasoningTokens: total(requestLogHours.reasoningTokens),
  totalTokens: total(requestLogHours.totalTokens),
  cost: total(requestLogHours.cost),
  latencySum: total(requestLogHours.latencyMs),
};

const { averageLatency: _average, ...countsOfLogs } = usageColumns;
const rawSums = { ...countsOfLogs, latencySum: total(requestLogs.latencyMs) };

/** What usage is grouped by, as the hourly table and the log table each express it. */
export interface Grouping<Key extends Record<string, unknown>> {
  hourly: { [Name in keyof Key]: SQL<Key[Name]> | SQLiteColumn };
  raw: { [Name in keyof Key]: SQL<Key[Name]> | SQLiteColumn };
}

export const BY_MODEL: Grouping<{ provider: string; model: string }> = {
  hourly: { provider: requestLogHours.provider, model: requestLogHours.model },
  raw: { provider: requestLogs.provider, model: requestLogs.model },
};

export const TOTAL: Grouping<Record<string, never>> = { hourly: {}, raw: {} };

/** Buckets of `sizeMs` (a whole number of hours) aligned to the epoch, keyed by their start. */
export function byBucket(sizeMs: number): Grouping<{ bucket: number }> {
  // Inlined, not bound: a bound JS number may arrive as REAL and turn the division fractional.
  const width = sql.raw(String(sizeMs));
  return {
    hourly: { bucket: sql<number>`(${requestLogHours.hour} / ${width}) * ${width}`.mapWith(Number) },
    raw: { bucket: sql<number>`(${requestLogs.timestamp} / ${width}) * ${width}`.mapWith(Number) },
  };
}

function hourlyConditions(filters: LogFilters, hours: { from?: number; until?: number }): SQL | undefined {
  const { providers, models, status } = filters.lists;
  return and(
    ...(hours.from === undefined ? [] : [gte(requestLogHours.hour, hours.from)]),
    ...(hours.until === undefined ? [] : [lt(requestLogHours.hour, hours.until)]),
    ...(providers ? [inArray(requestLogHours.provider, providers)] : []),
    ...(models ? [inArray(requestLogHours.model, models)] : []),
    ...(status ? [inArray(requestLogHours.status, status as Array<"processing" | "success" | "error">)] : []),
  );
}

function add(into: Summed, part: Summed): Summed {
  for (const name of Object.keys(into) as Array<keyof Summed>) into[name] += part[name];
  return into;
}

const usageOf = ({ latencySum, ...sums }: Summed): Usage => ({ ...sums, averageLatency: sums.requests === 0 ? 0 : latencySum / sums.requests });

/**
 * Usage in `window` for filters `answeredByHours` accepts, per group: whole hours from the
 * hourly table, the partial hours at the edges from the logs, the parts side by side.
 */
export async function hourlyUsage<Key extends Record<string, unknown>>(db: ReadDatabase, filters: LogFilters, window: TimeWindow, grouping: Grouping<Key>): Promise<Array<Key & Usage>> {
  const { hours, edges } = splitWindow(window);
  const hourlyGroups = Object.values(grouping.hourly);
  const rawGroups = Object.values(grouping.raw);
  const parts = await Promise.all([
    hours ? db.select({ ...grouping.hourly, ...hourlySums }).from(requestLogHours).where(hourlyConditions(filters, hours)).groupBy(...hourlyGroups) : [],
    ...edges.map((edge) => db.select({ ...grouping.raw, ...rawSums }).from(requestLogs).where(logConditions(filters, edge)).groupBy(...rawGroups)),
  ]);
  const groups = new Map<string, { key: Key; sums: Summed }>();
  for (const rows of parts) {
    for (const row of rows as Array<Record<string, unknown>>) {
      const key = Object.fromEntries(Object.keys(grouping.raw).map((name) => [name, row[name]])) as Key;
      const sums = Object.fromEntries(Object.keys(rawSums).map((name) => [name, row[name]])) as Summed;
      // A group with no rows still answers one row of zeros when nothing is grouped.
      if (sums.requests === 0) continue;
      const id = JSON.stringify(key);
      const group = groups.get(id);
      if (group) add(group.sums, sums);
      else groups.set(id, { key, sums });
    }
  }
  return [...groups.values()].map(({ key, sums }) => ({ ...key, ...usageOf(sums) }));
}
