import { type SQL, sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { NO_USAGE, rateOf, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import { answeredByHours, hourlyUsage, TOTAL } from "./hourly";
import { previousWindow, type TimeWindow } from "./time-window";
import { percentChange } from "./trend";
import type { ReadDatabase } from "./worker-reader";

const PERCENTILES = [50, 90, 95, 99] as const;

const LATENCIES = sql<string>`json_group_array(${requestLogs.latencyMs})`;

/**
 * Nearest-rank percentiles of the window's latencies. SQLite hands them over as one JSON array,
 * several times cheaper than a sorting window function; they are sorted off the main thread.
 */
async function latencyPercentiles(db: ReadDatabase, where: SQL | undefined) {
  const values = await db.percentilesOf(db.select({ latencies: LATENCIES }).from(requestLogs).where(where), PERCENTILES);
  return Object.fromEntries(PERCENTILES.map((percentile, index) => [`p${percentile}`, values[index]])) as Record<`p${(typeof PERCENTILES)[number]}`, number | null>;
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

async function periodTotals(db: ReadDatabase, filters: LogFilters, window: TimeWindow) {
  if (answeredByHours(filters)) return totalsView((await hourlyUsage(db, filters, window, TOTAL))[0] ?? NO_USAGE);
  const [usage] = (await db.select(usageColumns).from(requestLogs).where(logConditions(filters, window))) as Usage[];
  return totalsView(usage!);
}

const COMPARED = ["total_requests", "success_rate", "total_tokens", "total_cost", "average_latency"] as const;

/**
 * Totals and latency percentiles for the filtered window, and the totals of the window of equal
 * length before it with the change of each compared figure in percent.
 */
export async function logStats(db: ReadDatabase, filters: LogFilters, now: Date) {
  const previousRange = previousWindow(filters.window, now);
  // Side by side on the reader threads; totals come from whole hours where the filters allow.
  const [current, percentiles, previous] = await Promise.all([
    periodTotals(db, filters, filters.window),
    latencyPercentiles(db, logConditions(filters)),
    previousRange ? periodTotals(db, filters, previousRange) : null,
  ]);
  return {
    ...current,
    latency_percentiles: percentiles,
    has_previous_period: previous !== null,
    previous,
    change: previous && (Object.fromEntries(COMPARED.map((field) => [field, percentChange(current[field], previous[field])])) as Record<(typeof COMPARED)[number], number | null>),
  };
}
