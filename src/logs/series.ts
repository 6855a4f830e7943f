import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogGroupHours, requestLogHours, requestLogs } from "../db/schema/logs";
import { LogFilterFields, type LogFilters } from "./filters";
import { type ColumnGrouping, GROUPED_COLUMNS, byValueOf, groupHoursOf, narrowingOf, type RolledUpGrouping } from "./group-hours";
import { answeredByHours, byBucket, type Grouping, groupedBoth, HOUR_MS, type HourlySource, hoursOf, STREAM_SUMS, sumAcrossHours } from "./hourly";
import { keyNames } from "./key-names";
import { bucketSeconds } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

/** What a series can be grouped by: a column of request_logs, or `metadata.<key>`, a series per value of that key. Keys are kept to what a JSON path can quote. */
const GROUPS = ["model", "provider", ...(Object.keys(GROUPED_COLUMNS) as ColumnGrouping[])] as const;
export const METADATA_KEY_PATTERN = "[\\w.:-]{1,128}";
export type SeriesGroup = (typeof GROUPS)[number] | RolledUpGrouping;

export const SeriesQuery = t.Object(
  {
    ...LogFilterFields,
    group_by: t.Optional(
      t.String({
        pattern: `^(${GROUPS.join("|")}|metadata\\.${METADATA_KEY_PATTERN})$`,
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

type Bucketed = { bucket: number; value: string };

/** Where whole hours of a series are read, and what its figures are grouped by; no source when only the logs answer. */
function seriesSource(filters: LogFilters, group: SeriesGroup, sizeMs: number): { source?: HourlySource; grouping: Grouping<Bucketed> } {
  if (group === "model" || group === "provider") {
    const hourly = sizeMs % HOUR_MS === 0 && answeredByHours(filters);
    const byValue: Grouping<{ value: string }> = { hourly: { value: requestLogHours[group] }, raw: { value: requestLogs[group] } };
    return { source: hourly ? hoursOf(filters) : undefined, grouping: groupedBoth(byBucket(sizeMs), byValue) };
  }
  const narrowing = narrowingOf(filters);
  const hourly = sizeMs % HOUR_MS === 0 && narrowing !== undefined && (narrowing.grouping ?? group) === group;
  return { source: hourly ? groupHoursOf(filters, group, narrowing?.values) : undefined, grouping: groupedBoth(byBucket(sizeMs, requestLogGroupHours.hour), byValueOf(group)) };
}

/** The name of each virtual key the series shows (see keyNames). */
async function labelsOf(db: ReadDatabase, filters: LogFilters, group: SeriesGroup, keys: string[]): Promise<Map<string, string | null>> {
  return group === "virtual_key" ? keyNames(db, filters, filters.window, keys) : new Map();
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
  const windowed = { ...filters, window: { start: new Date(start), end: new Date(end) } };
  const { source, grouping } = seriesSource(windowed, group, sizeMs);
  const rows = await sumAcrossHours(db, windowed, windowed.window, source, grouping, STREAM_SUMS);
  const series = new Map<string, Static<typeof LogSeries>["groups"][number] & { total: number }>();
  for (const { key, sums } of rows) {
    const index = (key.bucket - first) / sizeMs;
    let entry = series.get(key.value);
    if (!entry) {
      const zeros = () => times.map(() => 0);
      entry = { key: key.value, label: key.value, total: 0, requests: zeros(), errors: zeros(), total_tokens: zeros(), total_cost: zeros(), cache_hits: zeros(), time_to_first_token: times.map(() => null) };
      series.set(key.value, entry);
    }
    entry.total += sums.requests;
    entry.requests[index] = sums.requests;
    entry.errors[index] = sums.errors;
    entry.total_tokens[index] = sums.totalTokens;
    entry.total_cost[index] = sums.cost;
    entry.cache_hits[index] = sums.cacheHits;
    entry.time_to_first_token[index] = sums.firstTokenRequests === 0 ? null : sums.firstTokenSum / sums.firstTokenRequests;
  }
  const labels = await labelsOf(db, windowed, group, [...series.keys()]);
  for (const entry of series.values()) entry.label = labels.get(entry.key) ?? entry.key;
  const groups = [...series.values()].sort((a, b) => b.total - a.total || a.key.localeCompare(b.key)).map(({ total: _, ...entry }) => entry);
  return { bucket_size_seconds: size, timestamps: times.map((timestamp) => new Date(timestamp).toISOString()), groups };
}
