import { type SQL, sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { rateOf, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import { previousWindow } from "./time-window";
import { percentChange } from "./trend";
import type { ReadDatabase } from "./worker-reader";

const PERCENTILES = [50, 90, 95, 99] as const;

const LATENCIES = sql<string>`json_group_array(${requestLogs.latencyMs})`;

/**
 * Nearest-rank percentiles: the smallest latency with at least p% of requests at or below it.
 * SQLite hands over the window's latencies as one JSON array, several times cheaper than a
 * sorting window function or a row per latency, and they are sorted here.
 */
function latencyPercentiles(latencies: string) {
  const sorted = new Float64Array(JSON.parse(latencies) as number[]).sort();
  const at = (percentile: number) => (sorted.length === 0 ? null : sorted[Math.ceil((percentile / 100) * sorted.length) - 1]!);
  return Object.fromEntries(PERCENTILES.map((percentile) => [`p${percentile}`, at(percentile)])) as Record<`p${(typeof PERCENTILES)[number]}`, number | null>;
}

function totalsView(totals: Usage) {
  return {
    total_requests: totals.requests,
    success_count: totals.successes,
    error_count: totals.errors,
    success_rate: rateOf(totals.successes, totals.requests),
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    cached_tokens: totals.cachedTokens,
    reasoning_tokens: totals.reasoningTokens,
    total_tokens: totals.totalTokens,
    total_cost: totals.cost,
    average_latency: totals.averageLatency,
  };
}

/** The window's totals and latency percentiles, from one pass over its rows. */
async function periodTotalsAndPercentiles(db: ReadDatabase, where: SQL | undefined) {
  const [row] = await db
    .select({ ...usageColumns, latencies: LATENCIES })
    .from(requestLogs)
    .where(where);
  const { latencies, ...totals } = row!;
  return { totals: totalsView(totals), percentiles: latencyPercentiles(latencies) };
}

async function periodTotals(db: ReadDatabase, where: SQL | undefined) {
  const [usage] = (await db.select(usageColumns).from(requestLogs).where(where)) as Usage[];
  return totalsView(usage!);
}

const COMPARED = ["total_requests", "success_rate", "total_tokens", "total_cost", "average_latency"] as const;

/**
 * Totals and latency percentiles for the filtered window, and the totals of the window of equal
 * length before it with the change of each compared figure in percent.
 */
export async function logStats(db: ReadDatabase, filters: LogFilters, now: Date) {
  const where = logConditions(filters);
  const previousRange = previousWindow(filters.window, now);
  const [{ totals: current, percentiles }, previous] = await Promise.all([
    periodTotalsAndPercentiles(db, where),
    previousRange ? periodTotals(db, logConditions(filters, previousRange)) : null,
  ]);
  return {
    ...current,
    latency_percentiles: percentiles,
    has_previous_period: previous !== null,
    previous,
    change: previous && (Object.fromEntries(COMPARED.map((field) => [field, percentChange(current[field], previous[field])])) as Record<(typeof COMPARED)[number], number | null>),
  };
}
