import { and, gte, inArray, lt, sql } from "drizzle-orm";
import { requestLogLatencies, requestLogs } from "../db/schema/logs";
import { total } from "./aggregates";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import { answeredByHours, HOUR_MS, splitWindow } from "./hourly";
import type { TimeWindow } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

/**
 * Buckets grow by 2 %: a latency in bucket i lies in (GROWTH^(i-1), GROWTH^i] ms, and reporting
 * the bucket's middle is within 1 % of it. Migration 0005 repeats this expression (backfill and
 * deletion trigger), so changing it needs a migration that rebuilds request_log_latencies.
 */
const GROWTH = 1.02;
const latencyBucket = (column: string) => `CAST(ceil(ln(max(${column}, 0.001)) / ln(${GROWTH})) AS INTEGER)`;

/** The value reported for a bucket: the point within 1 % of every latency in it. */
const middleOf = (bucket: number) => (2 * GROWTH ** bucket) / (GROWTH + 1);

/**
 * Rolls the `?` rows inserted just before it into request_log_latencies, inside the batch's
 * transaction, before the full-text indexing (see ROLL_UP_INSERTED).
 */
export const ROLL_UP_LATENCIES = `WITH inserted AS MATERIALIZED (SELECT last_insert_rowid() AS last)
  INSERT INTO request_log_latencies
  SELECT timestamp / ${HOUR_MS} * ${HOUR_MS}, status, ${latencyBucket("latency_ms")}, count(*)
  FROM request_logs, inserted
  WHERE seq > inserted.last - ? AND seq <= inserted.last AND internal_caller IS NULL
  GROUP BY 1, 2, 3
  ON CONFLICT DO UPDATE SET requests = requests + excluded.requests`;

/** Filters the histogram answers: the window and statuses (it is kept per hour and status only). */
export function answeredByLatencyHistogram(filters: LogFilters): boolean {
  return answeredByHours(filters) && !filters.lists.providers && !filters.lists.models;
}

/**
 * Nearest-rank latency percentiles of `window`, each within 1 % of the exact one: whole hours
 * from the histogram, the partial hours at the edges bucketed from the logs. For filters
 * `answeredByLatencyHistogram` accepts.
 */
export async function histogramPercentiles(db: ReadDatabase, filters: LogFilters, window: TimeWindow, percentiles: readonly number[]): Promise<Array<number | null>> {
  const { hours, edges } = splitWindow(window);
  const status = filters.lists.status as Array<"processing" | "success" | "error"> | undefined;
  const rawBucket = sql<number>`${sql.raw(latencyBucket(`"${requestLogs.latencyMs.name}"`))}`.mapWith(Number);
  const parts = await Promise.all([
    hours
      ? db
          .select({ bucket: requestLogLatencies.bucket, requests: total(requestLogLatencies.requests) })
          .from(requestLogLatencies)
          .where(
            and(
              ...(hours.from === undefined ? [] : [gte(requestLogLatencies.hour, hours.from)]),
              ...(hours.until === undefined ? [] : [lt(requestLogLatencies.hour, hours.until)]),
              ...(status ? [inArray(requestLogLatencies.status, status)] : []),
            ),
          )
          .groupBy(requestLogLatencies.bucket)
      : [],
    ...edges.map((edge) => db.select({ bucket: rawBucket, requests: sql<number>`count(*)`.mapWith(Number) }).from(requestLogs).where(logConditions(filters, edge)).groupBy(rawBucket)),
  ]);
  const counts = new Map<number, number>();
  for (const rows of parts) for (const { bucket, requests } of rows) counts.set(bucket, (counts.get(bucket) ?? 0) + requests);
  return percentilesOfBuckets(counts, percentiles);
}

/** Nearest rank over bucket counts: the middle of the bucket holding the ceil(p% × n)-th latency. */
function percentilesOfBuckets(counts: Map<number, number>, percentiles: readonly number[]): Array<number | null> {
  const buckets = [...counts].filter(([, requests]) => requests > 0).sort(([a], [b]) => a - b);
  const requests = buckets.reduce((sum, [, count]) => sum + count, 0);
  return percentiles.map((percentile) => {
    if (requests === 0) return null;
    const rank = Math.ceil((percentile / 100) * requests);
    let seen = 0;
    for (const [bucket, count] of buckets) {
      seen += count;
      if (seen >= rank) return middleOf(bucket);
    }
    return middleOf(buckets.at(-1)![0]);
  });
}
