/**
 * Nearest-rank percentiles of `values` (a JSON array of numbers, as SQLite's json_group_array
 * hands them over): for each p, the smallest value with at least p% of values at or below it;
 * null when there are none. Parsing and sorting a long window's latencies takes tens of
 * milliseconds, so on an embedded file it runs on a reader thread, never on the main one.
 */
export function nearestRankPercentiles(values: string, percentiles: readonly number[]): Array<number | null> {
  const sorted = new Float64Array(JSON.parse(values) as number[]).sort();
  return percentiles.map((percentile) => (sorted.length === 0 ? null : sorted[Math.ceil((percentile / 100) * sorted.length) - 1]!));
}
