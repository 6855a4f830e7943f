import type { AppliedLimit } from "./applied-limits";
import type { Reservation } from "./reservations";
import { addPeriod, calendarStart } from "./periods";

export interface CounterReading {
  used: number;
  /** When the current window began; for a counter not used yet in this window, now (or the calendar boundary). */
  windowStart: number;
  resetsAt: number;
}

/** A counter's usage in the window that began at `start`. */
export interface CounterWindow {
  used: number;
  start: number;
}

/**
 * The budget and rate-limit counters admission reads and charges: a process's own
 * (UsageCounters), or, in a worker of `server.workers`, those the first process keeps for all of
 * them (src/server/shared-counters.ts).
 */
export interface LimitCounters {
  read(limit: AppliedLimit): CounterReading;
  add(limit: AppliedLimit, amount: number): void;
  /** Takes back usage added in the window that began at `windowStart`, while it is still current (a failed video's charge). */
  takeBack(counterId: string, windowStart: number, windowMs: number, amount: number): void;
  /**
   * Checks every limit, reserves a request slot on each request limit and `reserve` (USD) on each
   * budget, throwing the 402 or 429 of the first limit passed; synchronous where nothing needs asking.
   */
  admit(limits: readonly AppliedLimit[], now: number, spends: boolean, reserve: number): Reservation | undefined | Promise<Reservation | undefined>;
  /** Gives back what `admit` reserved on budgets, once the call has settled. */
  release(reservation: Reservation | undefined): void;
  load(): Promise<void>;
  startFlushing(intervalMs: number): void;
  close(): Promise<void>;
}

/** The counter's window at `now`: an ended window gives way to a new one at zero. */
export function currentWindow(window: CounterWindow | undefined, limit: AppliedLimit, now: number): CounterWindow {
  if (window && now < addPeriod(window.start, limit.period)) return window;
  return { used: 0, start: limit.calendarAligned ? calendarStart(now, limit.period) : now };
}

export function readingOf(window: CounterWindow, limit: AppliedLimit): CounterReading {
  return { used: window.used, windowStart: window.start, resetsAt: addPeriod(window.start, limit.period) };
}
