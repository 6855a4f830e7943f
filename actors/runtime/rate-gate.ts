import type { Clock } from "./clock";

/**
 * At most `perSecond` starts per key (an endpoint), spaced evenly and granted in the order
 * asked: each caller is given the next free moment and waits for it on the actors' clock.
 */
export class RateGate {
  private readonly nextFree = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Resolves at the caller's turn; at once when `perSecond` is 0 (no limit). */
  take(key: string, perSecond: number, signal?: AbortSignal): Promise<void> {
    if (perSecond <= 0) return Promise.resolve();
    const now = this.clock.now();
    const turn = Math.max(now, this.nextFree.get(key) ?? 0);
    this.nextFree.set(key, turn + 1000 / perSecond);
    if (turn <= now) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(resolve, turn - now);
      signal?.addEventListener(
        "abort",
        () => {
          this.clock.clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }
}
