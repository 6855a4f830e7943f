import type { Clock } from "./clock";

/**
 * At most `perSecond` starts per key (an endpoint), granted one at a time in the order asked,
 * each at least 1/perSecond after the one before as it actually happened: a grant delayed by a
 * busy event loop delays the next ones too, so no second ever takes a burst.
 */
export class RateGate {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly lastGrant = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Resolves at the caller's turn; at once when `perSecond` is 0 (no limit). */
  take(key: string, perSecond: number, signal?: AbortSignal): Promise<void> {
    if (perSecond <= 0) return Promise.resolve();
    const turn = (this.queues.get(key) ?? Promise.resolve()).then(() => this.grant(key, 1000 / perSecond, signal));
    const settled = turn.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return turn;
  }

  private async grant(key: string, intervalMs: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const wait = (this.lastGrant.get(key) ?? Number.NEGATIVE_INFINITY) + intervalMs - this.clock.now();
    if (wait > 0) await this.sleep(wait, signal);
    this.lastGrant.set(key, this.clock.now());
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(resolve, ms);
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
