
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

/** A clock that knows when the timers armed through it are due: an actor's next retry or expiry, for the lifecycle views. */
export interface TimerWatch extends Clock {
  /** The earliest armed timer's due time (epoch ms), or undefined when none is armed. */
  nextDue(): number | undefined;
}

export function watchTimers(clock: Clock): TimerWatch {
  const due = new Map<object, { at: number; timer: unknown }>();
  return {
    now: () => clock.now(),
    setTimeout(callback, delayMs) {
      const handle = {};
      const timer = clock.setTimeout(() => {
        due.delete(handle);
        callback();
      }, delayMs);
      due.set(handle, { at: clock.now() + delayMs, timer });
      return handle;
    },
    clearTimeout(handle) {
      const armed = due.get(handle as object);
      if (!armed) return;
      due.delete(handle as object);
      clock.clearTimeout(armed.timer);
    },
    nextDue() {
      let next: number | undefined;
      for (const { at } of due.values()) if (next === undefined || at < next) next = at;
      return next;
    },
  };
}
