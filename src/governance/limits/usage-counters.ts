import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governanceUsage } from "../../db/schema";
import type { AppliedLimit } from "./applied-limits";
import { addPeriod, calendarStart } from "./periods";

interface Window {
  used: number;
  start: number;
}

export interface CounterReading {
  used: number;
  /** When the current window began; for a counter not used yet in this window, now (or the calendar boundary). */
  windowStart: number;
  resetsAt: number;
}

/**
 * Budget and rate-limit counters. The hot path reads and adds in memory, synchronously, so a
 * check and its reservation cannot interleave with another request's; a timer writes changed
 * counters to libSQL so they survive a restart (`flush()` on shutdown writes the rest).
 */
export class UsageCounters {
  private readonly windows = new Map<string, Window>();
  private readonly changed = new Set<string>();
  private timer?: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
  ) {}

  async load(): Promise<void> {
    for (const row of await this.db.select().from(governanceUsage)) this.windows.set(row.counterId, { used: row.used, start: row.windowStart.getTime() });
  }

  /** Writes changed counters every `intervalMs`; the timer never keeps the process alive. */
  startFlushing(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush().catch((error) => console.error("governance: usage counters could not be saved", error)), intervalMs);
    this.timer.unref?.();
  }

  read(limit: AppliedLimit): CounterReading {
    const window = this.current(limit);
    return { used: window.used, windowStart: window.start, resetsAt: addPeriod(window.start, limit.period) };
  }

  add(limit: AppliedLimit, amount: number): void {
    // Written this way round so that NaN, too, is never added.
    if (!(amount > 0)) return;
    const window = this.current(limit);
    this.windows.set(limit.counterId, { used: window.used + amount, start: window.start });
    this.changed.add(limit.counterId);
  }

  async flush(): Promise<void> {
    const ids = [...this.changed];
    this.changed.clear();
    if (ids.length === 0) return;
    const now = new Date(this.clock());
    const rows = ids.map((counterId) => ({ counterId, used: this.windows.get(counterId)!.used, windowStart: new Date(this.windows.get(counterId)!.start), updatedAt: now }));
    await this.db
      .insert(governanceUsage)
      .values(rows)
      .onConflictDoUpdate({ target: governanceUsage.counterId, set: { used: sql`excluded.used`, windowStart: sql`excluded.window_start`, updatedAt: sql`excluded.updated_at` } });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** The counter's window at this moment: an ended window gives way to a new one at zero. */
  private current(limit: AppliedLimit): Window {
    const now = this.clock();
    const window = this.windows.get(limit.counterId);
    if (window && now < addPeriod(window.start, limit.period)) return window;
    return { used: 0, start: limit.calendarAligned ? calendarStart(now, limit.period) : now };
  }
}
