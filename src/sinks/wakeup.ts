import type { Clock } from "../../actors/runtime/clock";

/** What the delivery loops wait on between batches: the poll interval, or this node storing rows (`ring`), whichever comes first. */
export class Wakeup {
  private bell = Promise.withResolvers<void>();

  ring(): void {
    this.bell.resolve();
    this.bell = Promise.withResolvers<void>();
  }

  /** Resolves after `ms`, at the next ring, or when `signal` aborts. */
  async wait(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
    const timed = Promise.withResolvers<void>();
    const timer = clock.setTimeout(timed.resolve, ms);
    const aborted = () => timed.resolve();
    signal.addEventListener("abort", aborted, { once: true });
    try {
      await Promise.race([timed.promise, this.bell.promise]);
    } finally {
      clock.clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
    }
  }
}
