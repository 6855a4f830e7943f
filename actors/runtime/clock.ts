
/**
 * Time as the actors see it: xstate's timer pair plus `now()`. The server uses the system
 * clock; tests pass xstate's `SimulatedClock` (set to the wall time) and move it by hand.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** setTimeout's longest delay; a longer one would fire at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** A timeout's delay as setTimeout keeps it: one past ~24.8 days (a limit configured as "never", in effect) waits that long instead of firing at once. */
export const timerDelay = (delayMs: number) => Math.min(delayMs, LONGEST_TIMER_MS);

interface LongTimer {
  handle?: ReturnType<typeof setTimeout>;
}

/** Waits in steps, so delays of days (result TTLs, retry caps) are kept rather than cut. */
function setLongTimeout(callback: () => void, delayMs: number): LongTimer {
  const timer: LongTimer = {};
  const due = Date.now() + Math.max(0, delayMs);
  const arm = () => {
    const remaining = due - Date.now();
    timer.handle = setTimeout(remaining > LONGEST_TIMER_MS ? arm : callback, Math.min(Math.max(remaining, 0), LONGEST_TIMER_MS));
    // Actors are stopped explicitly; a pending retry must not keep a stopping process alive.
    timer.handle.unref?.();
  };
  arm();
  return timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setLongTimeout(callback, delayMs),
  clearTimeout: (timer) => clearTimeout((timer as LongTimer).handle),
};
