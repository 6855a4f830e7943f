import { max, min } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import { answeredByHours, byBucket, HOUR_MS, hourlyUsage } from "./hourly";
import type { LogFilters } from "./filters";
import { bucketSeconds } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

/** The range to cover: the filters' window, with open ends closed by the data (or now). */
async function coveredRange(db: ReadDatabase, filters: LogFilters, now: Date): Promise<{ start: number; end: number } | undefined> {
  const { start, end } = filters.window;
  if (start) return { start: start.getTime(), end: (end ?? now).getTime() };
  const [seen] = await db
    .select({ first: min(requestLogs.timestamp), last: max(requestLogs.timestamp) })
    .from(requestLogs)
    .where(logConditions(filters));
  if (!seen?.first || !seen.last) return undefined;
  return { start: seen.first.getTime(), end: (end ?? seen.last).getTime() };
}

function bucketView(timestamp: number, usage: Usage | undefined) {
  return {
    timestamp: new Date(timestamp).toISOString(),
    count: usage?.requests ?? 0,
    success: usage?.successes ?? 0,
    error: usage?.errors ?? 0,
    total_tokens: usage?.totalTokens ?? 0,
    total_cost: usage?.cost ?? 0,
    average_latency: usage?.averageLatency ?? 0,
  };
}

async function bucketsOfLogs(db: ReadDatabase, filters: LogFilters, sizeMs: number) {
  const { bucket } = byBucket(sizeMs).raw;
  return db
    .select({ bucket, ...usageColumns })
    .from(requestLogs)
    .where(logConditions(filters))
    .groupBy(bucket);
}

/** Requests over time in equal buckets aligned to the epoch, empty buckets included. */
export async function logHistogram(db: ReadDatabase, filters: LogFilters, now: Date) {
  const range = await coveredRange(db, filters, now);
  if (!range) return { buckets: [], bucket_size_seconds: bucketSeconds(0) };
  const size = bucketSeconds(range.end - range.start);
  const sizeMs = size * 1000;
  const rows = answeredByHours(filters) && sizeMs % HOUR_MS === 0 ? await hourlyUsage(db, filters, filters.window, byBucket(sizeMs)) : await bucketsOfLogs(db, filters, sizeMs);
  const usageAt = new Map(rows.map(({ bucket, ...usage }) => [bucket, usage as Usage]));
  const buckets = [];
  for (let timestamp = Math.floor(range.start / sizeMs) * sizeMs; timestamp <= range.end; timestamp += sizeMs) buckets.push(bucketView(timestamp, usageAt.get(timestamp)));
  return { buckets, bucket_size_seconds: size };
}
