import { backgroundTimeout } from "./background-timer";
import type { LogWriter } from "./table-writes";

const DAY_MS = 86_400_000;
/** Rows per deletion: each holds the write lock briefly, and batches of new logs go in between. */
const SWEEP_CHUNK = 2_000;

export interface RetentionOptions {
  /** `logs_store.retention_days`, read on every sweep; unset or 0 keeps logs forever. */
  retentionDays: () => number | undefined;
  intervalMs: number;
  clock: () => Date;
  /** Called after every sweep with the number of rows removed. */
  onSweep?: (deleted: number) => void;
}

/** Removes logs older than the retention period now and then every `intervalMs`. */
export function scheduleRetention(writer: Pick<LogWriter, "deleteOlderThan">, options: RetentionOptions) {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  async function sweep(): Promise<number> {
    const days = options.retentionDays();
    if (!days || days <= 0) return 0;
    const cutoff = new Date(options.clock().getTime() - days * DAY_MS);
    let deleted = 0;
    let removed: number;
    do {
      removed = await writer.deleteOlderThan(cutoff, SWEEP_CHUNK);
      deleted += removed;
    } while (removed === SWEEP_CHUNK && !stopped);
    return deleted;
  }

  async function tick() {
    try {
      options.onSweep?.(await sweep());
    } catch (error) {
      console.error("request log retention: sweep failed", error);
    }
    if (stopped) return;
    timer = backgroundTimeout(start, options.intervalMs);
  }

  const start = () => {
    running = tick().finally(() => (running = undefined));
  };
  timer = backgroundTimeout(start, 0);
  return {
    /** Stops the schedule; resolves once a sweep under way has finished its current deletion. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
