import { parseTimestamp } from "../http/timestamps";

/** Inclusive bounds on a log's timestamp; an absent bound is open. */
export interface TimeWindow {
  start?: Date;
  end?: Date;
}

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  M: 30 * 86_400_000,
};

/** A relative period: a count and a unit (`30s`, `15m`, `24h`, `7d`, `2w`, `1M` = 30 days). */
export const PERIOD_PATTERN = "^[1-9][0-9]*(s|m|h|d|w|M)$";

export function periodMs(period: string): number {
  return Number(period.slice(0, -1)) * UNIT_MS[period.slice(-1)]!;
}

export interface WindowQuery {
  start_time?: string;
  end_time?: string;
  period?: string;
}


/** `period` (ending now) wins over `start_time`/`end_time`; one reaching back past 1970 covers all time. */
export function resolveWindow(query: WindowQuery, now: Date): TimeWindow {
  if (query.period) return { start: new Date(Math.max(0, now.getTime() - periodMs(query.period))), end: now };
  return {
    start: query.start_time ? parseTimestamp(query.start_time) : undefined,
    end: query.end_time ? parseTimestamp(query.end_time) : undefined,
  };
}

/**
 * The window of the same length right before `window`, for trends; none when the window has no
 * start (all time) or no positive length. An open end means now.
 */
export function previousWindow(window: TimeWindow, now: Date): Required<TimeWindow> | undefined {
  if (!window.start) return undefined;
  const start = window.start.getTime();
  const length = (window.end ?? now).getTime() - start;
  if (length <= 0) return undefined;
  return { start: new Date(start - length), end: new Date(start - 1) };
}

const BUCKET_STEPS: Array<[rangeAtLeastMs: number, bucketSeconds: number]> = [
  [365 * UNIT_MS.d!, 30 * 86_400],
  [90 * UNIT_MS.d!, 7 * 86_400],
  [31 * UNIT_MS.d!, 3 * 86_400],
  [7 * UNIT_MS.d!, 86_400],
  [3 * UNIT_MS.d!, 8 * 3_600],
  [UNIT_MS.d!, 3_600],
  [2 * UNIT_MS.h!, 600],
];

/** Histogram bucket width for a range: about 24 to 200 bars whatever the range. */
export function bucketSeconds(rangeMs: number): number {
  return BUCKET_STEPS.find(([atLeast]) => rangeMs >= atLeast)?.[1] ?? 60;
}
