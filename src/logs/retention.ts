import type { Database } from "../db/client";
import { backgroundTimeout } from "./background-timer";
import { deleteLogsBefore } from "./deletion";

const DAY_MS = 86_400_000;

export interface RetentionOptions {
  /** `logs_store.retention_days`, read on every sweep; unset or 0 keeps logs forever. */
  retentionDays: () => number | undefined;
  intervalMs: number;
  clock: () => Date;
  /** Called after every sweep with the number of rows removed. */
  onSweep?: (deleted: number) => void;
}

/** Removes logs older than the retention period now and then every `intervalMs`. */
export function scheduleRetention(db: Database, options: RetentionOptions) {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function sweep(): Promise<number> {
    const days = options.retentionDays();
    if (!days || days <= 0) return 0;
    return deleteLogsBefore(db, new Date(options.clock().getTime() - days * DAY_MS));
  }

  async function tick() {
    try {
      options.onSweep?.(await sweep());
    } catch (error) {
      console.error("request log retention: sweep failed", error);
    }
    if (stopped) return;
    timer = backgroundTimeout(tick, options.intervalMs);
  }

  timer = backgroundTimeout(tick, 0);
  return {
    sweep,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
