import { and, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { requestLogMetadata, requestLogs } from "../db/schema/logs";
import { NO_USAGE, rateOf, type Usage, usageColumns } from "./aggregates";
import { logConditions, notGatewayCall } from "./conditions";
import type { LogFilters } from "./filters";
import { groupHoursOf, METADATA_GROUPING, narrowingOf } from "./group-hours";
import { answeredByHours, hourlyUsage, sumAcrossHours, TOTAL, USAGE_SUMS, usageOf } from "./hourly";
import { answeredByLatencyHistogram, histogramPercentiles } from "./latency-histogram";
import { previousWindow, type TimeWindow } from "./time-window";
import { percentChange } from "./trend";
import type { ReadDatabase } from "./worker-reader";

const PERCENTILES = [50, 90, 95, 99] as const;

const LATENCIES = sql<string>`json_group_array(${requestLogs.latencyMs})`;

/**
 * Up to this many requests in the window, percentiles are exact: ~25 ms to hand every latency
 * over and sort it at this size, growing with it (a million take ~250 ms). Beyond, the
 * latency histogram answers within 1 % in a time that grows with the hours, not the requests.
 */
const EXACT_PERCENTILES_UP_TO = 100_000;

/**
 * Every latency of the window as one JSON array: narrowed to one metadata value, from its pairs
 * (each with its log's status and latency), which reads no log, where a common value's logs
 * read one by one took seconds.
 */
function latenciesOf(db: ReadDatabase, filters: LogFilters) {
  const { grouping, values } = narrowingOf(filters) ?? {};
  if (!grouping?.startsWith(METADATA_GROUPING)) return db.select({ latencies: LATENCIES }).from(requestLogs).where(logConditions(filters));
  const pairs = requestLogMetadata;
  const { start, end } = filters.window;
  const status = filters.lists.status as Array<"processing" | "success" | "error"> | undefined;
  return db
    .select({ latencies: sql<string>`json_group_array(${pairs.latencyMs})` })
    .from(pairs)
    .where(
      and(
        eq(pairs.key, grouping.slice(METADATA_GROUPING.length)),
        inArray(pairs.value, values!),
        ...(start ? [gte(pairs.timestamp, start.getTime())] : []),
        ...(end ? [lte(pairs.timestamp, end.getTime())] : []),
        ...(status ? [inArray(pairs.status, status)] : []),
        notGatewayCall(pairs.seq),
      ),
    );
}

/**
 * Nearest-rank percentiles of the window's latencies. Exact: SQLite hands them over as one JSON
 * array, several times cheaper than a sorting window function, sorted off the main thread.
 */
async function latencyPercentiles(db: ReadDatabase, filters: LogFilters, totals: Promise<{ total_requests: number }>, exactUpTo: number) {
  const histogram = answeredByLatencyHistogram(filters) && (await totals).total_requests > exactUpTo;
  const values = histogram ? await histogramPercentiles(db, filters, filters.window, PERCENTILES) : await db.percentilesOf(latenciesOf(db, filters), PERCENTILES);
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

/** Totals from whole hours where the filters allow: request_log_hours, or request_log_group_hours for one team, key, customer, error type or metadata value. */
async function periodTotals(db: ReadDatabase, filters: LogFilters, window: TimeWindow) {
  if (answeredByHours(filters)) return totalsView((await hourlyUsage(db, filters, window, TOTAL))[0] ?? NO_USAGE);
  const { grouping, values } = narrowingOf(filters) ?? {};
  if (grouping) {
    const [group] = await sumAcrossHours(db, filters, window, groupHoursOf(filters, grouping, values), TOTAL, USAGE_SUMS);
    return totalsView(group ? usageOf(group.sums) : NO_USAGE);
  }
  const [usage] = (await db.select(usageColumns).from(requestLogs).where(logConditions(filters, window))) as Usage[];
  return totalsView(usage!);
}

const COMPARED = ["total_requests", "success_rate", "total_tokens", "total_cost", "average_latency"] as const;

/**
 * Totals and latency percentiles for the filtered window, and the totals of the window of equal
 * length before it with the change of each compared figure in percent.
 */
export async function logStats(db: ReadDatabase, filters: LogFilters, now: Date, exactPercentilesUpTo = EXACT_PERCENTILES_UP_TO) {
  const previousRange = previousWindow(filters.window, now);
  // Side by side on the reader threads; totals come from whole hours where the filters allow.
  const currentTotals = periodTotals(db, filters, filters.window);
  const [current, percentiles, previous] = await Promise.all([
    currentTotals,
    latencyPercentiles(db, filters, currentTotals, exactPercentilesUpTo),
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
