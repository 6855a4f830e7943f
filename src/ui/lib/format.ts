const integer = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

export const formatCount = (value: number | null | undefined) => (value === null || value === undefined ? "–" : value >= 100_000 ? compact.format(value) : integer.format(value));

const cents = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const fraction = new Intl.NumberFormat("en", { maximumSignificantDigits: 2 });

/**
 * Every cost on the dashboard: a dollar or more in cents ($1,234.50), less in two significant
 * digits without trailing zeros or an exponent ($0.013, $0.00001, $0.00000016).
 */
export function formatCost(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const sign = value < 0 ? "-" : "";
  const size = Math.abs(value);
  return `${sign}$${size >= 0.995 ? cents.format(size) : fraction.format(size)}`;
}

/** A request's cost: a log row without one was not priced (its model is in no catalogue), which is not $0. */
export const formatLoggedCost = (value: number | null | undefined) => (value === null || value === undefined ? "unknown" : formatCost(value));

export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export const formatPercent = (value: number | null | undefined) => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)} %`);

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** "in 3 h", "in 12 min": when a limit's window resets. */
export function formatUntil(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((new Date(iso).getTime() - now) / 1000));
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `in ${Math.round(seconds / 3600)} h`;
  return `in ${Math.round(seconds / 86400)} days`;
}

/** Comma-separated text to a list, blanks dropped. */
export const listOf = (text: string) => text.split(",").map((item) => item.trim()).filter(Boolean);

/** `name=value, name=value` text to a record, and back. */
export const pairs = (text: string) => Object.fromEntries(listOf(text).map((pair) => pair.split("=").map((part) => part.trim()) as [string, string]));
export const pairsText = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([name, value]) => `${name}=${value}`)
    .join(", ");

const UNITS: Record<string, [string, string]> = { s: ["second", "seconds"], m: ["minute", "minutes"], h: ["hour", "hours"], d: ["day", "days"], w: ["week", "weeks"], M: ["month", "months"], Y: ["year", "years"] };

/** `1M` reads "month", `5m` "5 minutes". */
export function formatDuration(duration: string): string {
  const match = /^(\d+)([smhdwMY])$/.exec(duration);
  if (!match) return duration;
  const [singular, plural] = UNITS[match[2]!]!;
  return match[1] === "1" ? singular : `${match[1]} ${plural}`;
}

const LEVELS: Record<string, string> = { virtual_key: "Virtual key", team: "Team", customer: "Customer", provider: "Provider" };
/** Who a limit belongs to, as a person would say it. */
export const formatLevel = (level: string) => LEVELS[level] ?? level;
