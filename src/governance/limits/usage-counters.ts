import { gte, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { FailureStreak } from "../../db/failure-streak";
import { governanceUsage } from "../../db/schema";
import type { AppliedLimit } from "./applied-limits";
import { admitWithinLimits } from "./enforce-limits";
import { BudgetHolds, type Reservation } from "./reservations";
import { type CounterReading, type CounterWindow as Window, currentWindow, type LimitCounters, readingOf } from "./limit-counters";
import { addPeriod, type Period } from "./periods";

/** Usage added on this node and not yet saved, with the window it was counted in. */
interface Unsaved extends Window {
  lengthMs: number;
}

/** Rows another node saved up to this long before the last sync are read again (clocks drift). */
const SYNC_OVERLAP_MS = 5_000;

/**
 * Adds a node's usage to a saved counter. Two windows whose starts lie less than a window apart
 * are one (nodes start an unaligned window at slightly different moments): the saved start stays
 * and the usage adds up. Otherwise the later window wins, and usage counted in an earlier one
 * is dropped, since that window is over.
 */
const sameWindow = (length: number) => sql`abs(excluded.window_start - ${governanceUsage.windowStart}) < ${length}`;

/**
 * Budget and rate-limit counters. The hot path reads and adds in memory, synchronously, so a
 * check and its reservation cannot interleave with another request's. A timer saves what this
 * node added since the last save as an increment, and reads back what every node saved, so
 * several nodes on one database count together (one save interval behind each other) and the
 * counters survive a restart (`close()` saves the rest).
 */
export class UsageCounters implements LimitCounters {
  private readonly windows = new Map<string, Window>();
  /** What calls under way hold on budgets: counted by admission, never saved. */
  readonly holds = new BudgetHolds();
  private readonly watchers: Array<(counterId: string, window: Window) => void> = [];
  private unsaved = new Map<string, Unsaved>();
  private lastSync = Number.NEGATIVE_INFINITY;
  private timer?: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
  ) {}

  async load(): Promise<void> {
    await this.pull();
  }

  /** Saves and syncs every `intervalMs`; the timer never keeps the process alive. */
  startFlushing(intervalMs: number): void {
    const failures = new FailureStreak("governance: saving usage counters");
    this.timer = setInterval(() => void this.flush().then(() => failures.succeeded(), (error) => failures.failed(error)), intervalMs);
    this.timer.unref?.();
  }

  read(limit: AppliedLimit): CounterReading {
    return readingOf(this.current(limit), limit);
  }

  admit(limits: readonly AppliedLimit[], now: number, spends: boolean, reserve: number): Reservation | undefined {
    return admitWithinLimits(this, limits, now, spends, this.holds, reserve);
  }

  release(reservation: Reservation | undefined): void {
    this.holds.release(reservation);
  }

  /** Calls `watcher` with each window a change or a sync gives a counter: how the workers of `server.workers` follow them. */
  watch(watcher: (counterId: string, window: Window) => void): void {
    this.watchers.push(watcher);
  }

  /** Every counter's last window, ended or not. */
  windowsNow(): Array<[string, Window]> {
    return [...this.windows];
  }

  add(limit: AppliedLimit, amount: number): void {
    // Written this way round so that NaN, too, is never added.
    if (!(amount > 0)) return;
    const window = this.current(limit);
    this.change(limit.counterId, window, amount, limit.period);
  }

  /**
   * Takes back usage added in the window that began at `windowStart` (a charge for a video that
   * then failed), while that window is still the counter's current one: a window begun since
   * owes nothing back. Never below zero.
   */
  takeBack(counterId: string, windowStart: number, windowMs: number, amount: number): void {
    // A node that has not synced the charge yet (made on another node within the last sync) still knows it was made in that window.
    const window = this.windows.get(counterId) ?? { used: amount, start: windowStart };
    if (!(amount > 0) || Math.abs(window.start - windowStart) >= windowMs || this.clock() >= window.start + windowMs) return;
    const taken = Math.min(amount, window.used);
    if (taken > 0) this.change(counterId, window, -taken, windowMs);
  }

  /** `length`: the window's period, or its length in ms. */
  private change(counterId: string, window: Window, amount: number, length: Period | number): void {
    this.setWindow(counterId, { used: window.used + amount, start: window.start });
    const unsaved = this.unsaved.get(counterId);
    if (unsaved?.start === window.start) unsaved.used += amount;
    else this.unsaved.set(counterId, { used: amount, start: window.start, lengthMs: typeof length === "number" ? length : addPeriod(window.start, length) - window.start });
  }

  /** Saves this node's increments, then takes in what every node saved. */
  async flush(): Promise<void> {
    const saving = this.unsaved;
    this.unsaved = new Map();
    const updatedAt = new Date(this.clock());
    const upserts = [...saving].map(([counterId, { used, start, lengthMs }]) =>
      this.db
        .insert(governanceUsage)
        .values({ counterId, used, windowStart: new Date(start), updatedAt })
        .onConflictDoUpdate({
          target: governanceUsage.counterId,
          set: {
            used: sql`CASE WHEN ${sameWindow(lengthMs)} THEN max(0, ${governanceUsage.used} + excluded.used)
              WHEN excluded.window_start > ${governanceUsage.windowStart} THEN excluded.used ELSE ${governanceUsage.used} END`,
            windowStart: sql`CASE WHEN ${sameWindow(lengthMs)} THEN ${governanceUsage.windowStart}
              ELSE max(excluded.window_start, ${governanceUsage.windowStart}) END`,
            updatedAt,
          },
        }),
    );
    const [first, ...rest] = upserts;
    try {
      if (first) await this.db.batch([first, ...rest]);
    } catch (error) {
      // Kept for the next save: an increment must not be lost to a database that was briefly away.
      for (const [counterId, increment] of saving) this.unsaved.set(counterId, this.merged(increment, this.unsaved.get(counterId)));
      throw error;
    }
    await this.pull();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Takes in the saved counters changed since the last sync, plus what this node has not saved yet. */
  private async pull(): Promise<void> {
    const since = this.lastSync - SYNC_OVERLAP_MS;
    const rows = await this.db
      .select()
      .from(governanceUsage)
      .where(Number.isFinite(since) ? gte(governanceUsage.updatedAt, new Date(since)) : undefined);
    for (const row of rows) {
      this.lastSync = Math.max(this.lastSync, row.updatedAt.getTime());
      const start = row.windowStart.getTime();
      const unsaved = this.unsaved.get(row.counterId);
      if (!unsaved) {
        this.setWindow(row.counterId, { used: row.used, start });
        continue;
      }
      // Usage counted here and not saved yet belongs to the saved window when the two are one;
      // a later window of this node's own stays as it is until its first save.
      if (Math.abs(unsaved.start - start) < unsaved.lengthMs) {
        unsaved.start = start;
        this.setWindow(row.counterId, { used: row.used + unsaved.used, start });
      } else if (start > unsaved.start) this.setWindow(row.counterId, { used: row.used, start });
    }
  }

  private merged(older: Unsaved, newer: Unsaved | undefined): Unsaved {
    if (!newer) return older;
    return newer.start === older.start ? { ...newer, used: newer.used + older.used } : newer;
  }

  private setWindow(counterId: string, window: Window): void {
    this.windows.set(counterId, window);
    for (const watcher of this.watchers) watcher(counterId, window);
  }

  private current(limit: AppliedLimit): Window {
    return currentWindow(this.windows.get(limit.counterId), limit, this.clock());
  }
}
