import type { NewRequestLogRow } from "../db/schema/logs";
import type { GatewayError } from "../http/errors";
import type { CallerIdentity } from "../inference/hooks";
import type { RefusedRequestLogging } from "../config/sections/refused-requests";
import { loggedBodyJson } from "./logged-body";
import { isRefusedCaller, refusedRequestRow } from "./refused-requests";
import { TokenBucket } from "./token-bucket";

/**
 * Refused requests are logged up to this many at once, then this many a second, per node: a
 * flood of garbage costs the log a few rows a second, and the rest are counted, not stored.
 */
export const REFUSED_ROWS_BURST = 100;
export const REFUSED_ROWS_PER_SECOND = 20;

export interface RefusalLogSettings {
  contentLogging: () => boolean;
  refusedRequests: () => RefusedRequestLogging;
  region: string | null;
}

/**
 * The log of requests the gateway refused before its pipeline took them: each a row with its
 * status and error, its body as content logging says (never a 401's: an anonymous caller writes
 * no more than its request line), within the rate of a token bucket.
 */
export function refusalLog(enqueue: (row: NewRequestLogRow) => unknown, settings: RefusalLogSettings, bucket = new TokenBucket(REFUSED_ROWS_BURST, REFUSED_ROWS_PER_SECOND)) {
  let dropped = 0;
  return {
    record(headers: Headers, error: GatewayError, body?: unknown, caller?: CallerIdentity): void {
      const callerRefused = isRefusedCaller(error.status);
      if (callerRefused && settings.refusedRequests() === "off") return;
      if (!bucket.take()) {
        dropped++;
        return;
      }
      const content = !callerRefused && body !== undefined && settings.contentLogging() ? loggedBodyJson(body, Number(headers.get("content-length"))) : null;
      enqueue(refusedRequestRow({ headers, error, body, content, caller }, settings.region));
    },
    /** Refused requests left out of the log by the rate bound since start. */
    dropped: () => dropped,
  };
}
