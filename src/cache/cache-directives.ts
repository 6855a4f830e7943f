import { badRequest } from "../http/errors";

export interface CacheDirectives {
  /** `x-gw-cache-key`, else the configured default; none means the request is not cached. */
  key?: string;
  /** `x-gw-cache-ttl`: seconds, or a number with s, m, h or d. */
  ttlSeconds?: number;
  /** `x-gw-cache-no-store`: look up, but do not store this response. */
  noStore: boolean;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** The longest lifetime an entry may have, a century: a longer one ends past the dates the store can hold. */
export const LONGEST_TTL_SECONDS = 36_500 * 86_400;

function ttlOf(value: string | null): number | undefined {
  if (value === null) return undefined;
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(value);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[(match[2] || "s").toLowerCase()]! : 0;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > LONGEST_TTL_SECONDS) {
    throw badRequest("x-gw-cache-ttl must be a positive number of seconds, or a number with s, m, h or d (30s, 5m, 1h, 1d), up to 36500d", "x-gw-cache-ttl");
  }
  return seconds;
}

function flagOf(value: string | null, header: string): boolean {
  if (value === null) return false;
  const normalized = value.trim().toLowerCase();
  if (normalized === "true" || normalized === "1") return true;
  if (normalized === "false" || normalized === "0") return false;
  throw badRequest(`${header} must be true or false`, header);
}

export function cacheDirectivesOf(headers: Headers, defaultKey: string | undefined): CacheDirectives {
  const key = headers.get("x-gw-cache-key")?.trim() || defaultKey;
  return { key, ttlSeconds: ttlOf(headers.get("x-gw-cache-ttl")), noStore: flagOf(headers.get("x-gw-cache-no-store"), "x-gw-cache-no-store") };
}
