import { and, isNotNull, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogs } from "../db/schema/logs";
import { total, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import { LogFilterFields, type LogFilters } from "./filters";
import { byBucket } from "./hourly";
import { bucketSeconds } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

/** What a series can be grouped by: each a column of request_logs, read over the window's rows. */
const GROUPS = {
  model: requestLogs.model,
  provider: requestLogs.provider,
  virtual_key: requestLogs.virtualKeyId,
  team: requestLogs.teamId,
  customer: requestLogs.customerId,
  error_type: requestLogs.errorType,
  complexity_tier: requestLogs.complexityTier,
} as const;
/** `metadata.<key>`: a series per value of that metadata key. Keys are kept to what a JSON path can quote. */
const METADATA_GROUP = "metadata.";
export const METADATA_KEY_PATTERN = "[\\w.:-]{1,128}";
export type SeriesGroup = keyof typeof GROUPS | `${typeof METADATA_GROUP}${string}`;

export const SeriesQuery = t.Object(
  {
    ...LogFilterFields,
    group_by: t.Optional(
      t.String({
        pattern: `^(${Object.keys(GROUPS).join("|")}|metadata\\.${METADATA_KEY_PATTERN})$`,
        description: "model (default), provider, virtual_key, team, customer, error_type, complexity_tier or metadata.<key> (letters, digits, _ . : -); rows without a value are left out",
      }),
    ),
  },
  { additionalProperties: true },
);
export type SeriesQuery = Static<typeof SeriesQuery>;

const Figures = t.Array(t.Number());
export const LogSeries = t.Object({
  bucket_size_seconds: t.Integer(),
  timestamps: t.Array(t.String({ format: "date-time" }), { description: "The start of each bucket, oldest first, empty buckets included." }),
  groups: t.Array(
    t.Object({
      key: t.String({ description: "The model, provider, virtual key id, team id, customer id, error type, complexity tier or metadata value." }),
      label: t.String({ description: "What to show: the virtual key's name where logged, else the key." }),
      requests: Figures,
      errors: Figures,
      total_tokens: Figures,
      total_cost: Figures,
      cache_hits: t.Array(t.Number(), { description: "Requests answered from the gateway's cache (direct or semantic)." }),
      time_to_first_token: t.Array(t.Union([t.Number(), t.Null()]), { description: "Average milliseconds to the first streamed token; null where no stream answered." }),
    }),
    { description: "One per value seen in the window, most requests first; each figure lines up with `timestamps`." },
  ),
});

type GroupRow = Usage & { bucket: number; key: string; label: string | null; cacheHits: number; timeToFirstToken: number | null };

const streamColumns = {
  cacheHits: total(sql`${requestLogs.cacheHitType} IS NOT NULL`),
  timeToFirstToken: sql<number | null>`avg(${requestLogs.timeToFirstTokenMs})`,
};

/** The column (or metadata value) a group reads; the key is bound as a quoted JSON path, so no key is read as SQL or as a path. */
function groupColumn(group: SeriesGroup): AnySQLiteColumn | SQL {
  if (!group.startsWith(METADATA_GROUP)) return GROUPS[group as keyof typeof GROUPS];
  return sql`(${requestLogs.metadata} ->> ${`$."${group.slice(METADATA_GROUP.length)}"`})`;
}

function groupedBuckets(db: ReadDatabase, filters: LogFilters, group: SeriesGroup, sizeMs: number): Promise<GroupRow[]> {
  const column = groupColumn(group);
  const { bucket } = byBucket(sizeMs).raw;
  const label = group === "virtual_key" ? sql<string | null>`max(${requestLogs.virtualKeyName})` : sql<string | null>`null`;
  return db
    .select({ bucket, key: sql<string>`${column}`, label, ...usageColumns, ...streamColumns })
    .from(requestLogs)
    .where(and(isNotNull(column), logConditions(filters)))
    .groupBy(bucket, column) as Promise<GroupRow[]>;
}

/**
 * Usage, cache hits and time to first token over time in equal buckets, a series per model, provider, virtual key, team, customer, error type, complexity tier or metadata value.
 * The window must have a start (a period or start_time); an open end means now.
 */
export async function logSeries(db: ReadDatabase, filters: LogFilters, group: SeriesGroup, now: Date): Promise<Static<typeof LogSeries>> {
  const start = (filters.window.start ?? new Date(now.getTime() - 86_400_000)).getTime();
  const end = (filters.window.end ?? now).getTime();
  const size = bucketSeconds(end - start);
  const sizeMs = size * 1000;
  const first = Math.floor(start / sizeMs) * sizeMs;
  const times: number[] = [];
  for (let timestamp = first; timestamp <= end; timestamp += sizeMs) times.push(timestamp);
  const rows = await groupedBuckets(db, { ...filters, window: { start: new Date(start), end: new Date(end) } }, group, sizeMs);
  const series = new Map<string, Static<typeof LogSeries>["groups"][number] & { total: number }>();
  for (const row of rows) {
    const index = (row.bucket - first) / sizeMs;
    let entry = series.get(row.key);
    if (!entry) {
      const zeros = () => times.map(() => 0);
      entry = { key: row.key, label: row.label ?? row.key, total: 0, requests: zeros(), errors: zeros(), total_tokens: zeros(), total_cost: zeros(), cache_hits: zeros(), time_to_first_token: times.map(() => null) };
      series.set(row.key, entry);
    }
    if (row.label) entry.label = row.label;
    entry.total += row.requests;
    entry.requests[index] = row.requests;
    entry.errors[index] = row.errors;
    entry.total_tokens[index] = row.totalTokens;
    entry.total_cost[index] = row.cost;
    entry.cache_hits[index] = row.cacheHits;
    entry.time_to_first_token[index] = row.timeToFirstToken === null ? null : Number(row.timeToFirstToken);
  }
  const groups = [...series.values()].sort((a, b) => b.total - a.total || a.key.localeCompare(b.key)).map(({ total: _, ...entry }) => entry);
  return { bucket_size_seconds: size, timestamps: times.map((timestamp) => new Date(timestamp).toISOString()), groups };
}
