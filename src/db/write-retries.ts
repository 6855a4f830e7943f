import { setTimeout as sleep } from "node:timers/promises";

/**
 * The waits before each new attempt at a write the database did not take (locked past the busy
 * timeout, a libSQL server out of reach, a full disk): growing over about 40 s to 12 s, the wait
 * later attempts keep while a `retried` call's `until` has not aborted.
 */
export const WRITE_RETRY_DELAYS_MS: readonly number[] = [100, 250, 500, 1_000, 2_000, 4_000, 8_000, 12_000, 12_000];

/** How long a stopping gateway waits for a database that does not take its queued writes before it gives them up. */
export const STOP_GRACE_MS = 10_000;

export interface RetryOptions {
  delaysMs: readonly number[];
  /** Errors not worth another attempt: thrown at once. */
  refuses?: (error: unknown) => boolean;
  /** Told of each failure before its wait. */
  onRetry?: (error: unknown) => void;
  /**
   * Past the last delay, keep trying at that delay until this aborts; an abort cuts the wait
   * short for one last attempt. Without it, the failure after the last delay is thrown.
   */
  until?: AbortSignal;
}

/** Runs `write` until it succeeds, waiting between attempts; a refusal, or the failure once the waits are over, is thrown. */
export async function retried<T>(write: () => Promise<T>, { delaysMs, refuses, onRetry, until }: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const waitsOver = until ? until.aborted : attempt >= delaysMs.length;
      if (refuses?.(error) || waitsOver || delaysMs.length === 0) throw error;
      onRetry?.(error);
      // A held timer: a stopping gateway waits for the retries rather than exiting under them.
      await sleep(delaysMs[Math.min(attempt, delaysMs.length - 1)]!, undefined, { signal: until }).catch(() => undefined);
    }
  }
}
