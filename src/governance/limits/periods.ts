import { badRequest } from "../../http/errors";

export type PeriodUnit = "s" | "m" | "h" | "d" | "w" | "M" | "Y";

/** A reset duration such as `30s` or `1M`, parsed. */
export interface Period {
  count: number;
  unit: PeriodUnit;
}

const FIXED_MS: Partial<Record<PeriodUnit, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Calendar alignment needs a boundary that calendars have: midnight, Monday, the 1st, January 1st. */
const CALENDAR_UNITS: ReadonlySet<PeriodUnit> = new Set(["d", "w", "M", "Y"]);

/** Each unit's longest length, to bound a duration: a century at most, where windows still end on a date JavaScript can hold. */
const LONGEST_MS: Record<PeriodUnit, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, M: 31 * 86_400_000, Y: 366 * 86_400_000 };
const CENTURY_MS = 100 * LONGEST_MS.Y;

/** The schema has already checked the shape; `param` names the field for anything else. */
export function parsePeriod(text: string, param: string): Period {
  const match = /^([1-9][0-9]*)(s|m|h|d|w|M|Y)$/.exec(text);
  if (!match) throw badRequest(`${param} '${text}' is not a duration such as 30s, 5m, 1h, 1d, 1w or 1M`, param);
  const period = { count: Number(match[1]), unit: match[2] as PeriodUnit };
  if (period.count * LONGEST_MS[period.unit] > CENTURY_MS) throw badRequest(`${param} '${text}' is longer than the longest reset duration, 100Y`, param);
  return period;
}

export const canAlignToCalendar = (period: Period) => CALENDAR_UNITS.has(period.unit);

/** `start` moved forward by the period; months and years follow the calendar (UTC). */
export function addPeriod(start: number, period: Period): number {
  const fixed = FIXED_MS[period.unit];
  if (fixed) return start + fixed * period.count;
  const date = new Date(start);
  if (period.unit === "M") date.setUTCMonth(date.getUTCMonth() + period.count);
  else date.setUTCFullYear(date.getUTCFullYear() + period.count);
  return date.getTime();
}

/** The start of the calendar day, ISO week (Monday), month or year that contains `now`, in UTC. */
export function calendarStart(now: number, period: Period): number {
  const date = new Date(now);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  switch (period.unit) {
    case "w":
      return midnight - ((date.getUTCDay() + 6) % 7) * FIXED_MS.d!;
    case "M":
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    case "Y":
      return Date.UTC(date.getUTCFullYear(), 0, 1);
    default:
      return midnight;
  }
}
