import { max, min, sql, sum } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mcpToolLogs } from "../../db/schema";
import { bucketSeconds } from "../../logs/time-window";
import type { McpLogFilters } from "./filters";

/** The range to chart: the filters' window, with an open start or end closed by the data (or now). */
async function coveredRange(db: Database, filters: McpLogFilters, now: Date): Promise<{ start: number; end: number } | undefined> {
  const { start, end } = filters.window;
  if (start) return { start: start.getTime(), end: (end ?? now).getTime() };
  const [seen] = await db.select({ first: min(mcpToolLogs.timestamp), last: max(mcpToolLogs.timestamp) }).from(mcpToolLogs).where(filters.where);
  if (!seen?.first || !seen.last) return undefined;
  return { start: seen.first.getTime(), end: (end ?? seen.last).getTime() };
}

/**
 * Cost of MCP tool calls over time (spec 4.7): equal buckets aligned to the epoch, sized from
 * the range, every bucket present (zero when empty) so a chart has no holes.
 */
export async function mcpCostHistogram(db: Database, filters: McpLogFilters, now: Date) {
  const range = await coveredRange(db, filters, now);
  if (!range) return { buckets: [], bucket_size_seconds: bucketSeconds(0) };
  const size = bucketSeconds(range.end - range.start);
  const sizeMs = size * 1000;
  // Inlined, not bound: a bound JS number may arrive as REAL and turn the division fractional.
  const width = sql.raw(String(sizeMs));
  const bucketStart = sql<number>`(${mcpToolLogs.timestamp} / ${width}) * ${width}`.mapWith(Number);
  const rows = await db
    .select({ bucket: bucketStart, cost: sum(mcpToolLogs.cost).mapWith(Number) })
    .from(mcpToolLogs)
    .where(filters.where)
    .groupBy(bucketStart);
  const costs = new Map(rows.map((row) => [row.bucket, row.cost]));
  const buckets = [];
  for (let timestamp = Math.floor(range.start / sizeMs) * sizeMs; timestamp <= range.end; timestamp += sizeMs) {
    buckets.push({ timestamp: new Date(timestamp).toISOString(), total_cost: costs.get(timestamp) ?? 0 });
  }
  return { buckets, bucket_size_seconds: size };
}
