import { SimulatedClock } from "xstate";

interface Watcher {
  matches: (delayMs: number) => boolean;
  resolve: () => void;
}

/**
 * xstate's SimulatedClock starting at the wall time, that also tells a test when a timer is
 * set: a test waits for the retry timer to be armed before moving time past it.
 */
export class TestClock extends SimulatedClock {
  private readonly pending = new Map<number, number>();
  private watchers: Watcher[] = [];

  constructor(start = Date.now()) {
    super();
    this.set(start);
  }

  override setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    const id = super.setTimeout(() => {
      this.pending.delete(id);
      fn();
    }, timeout);
    this.pending.set(id, timeout);
    this.watchers = this.watchers.filter((watcher) => {
      if (!watcher.matches(timeout)) return true;
      watcher.resolve();
      return false;
    });
    return id;
  }

  override clearTimeout(id: number): void {
    this.pending.delete(id);
    super.clearTimeout(id);
  }

  /** Resolves once a timer whose delay matches is pending (at once if one already is). */
  timerSet(delay: number | ((delayMs: number) => boolean)): Promise<void> {
    const matches = typeof delay === "number" ? (ms: number) => ms === delay : delay;
    if ([...this.pending.values()].some(matches)) return Promise.resolve();
    return new Promise((resolve) => this.watchers.push({ matches, resolve }));
  }

  /** Delays of the timers still pending, for assertions. */
  pendingDelays(): number[] {
    return [...this.pending.values()];
  }
}
