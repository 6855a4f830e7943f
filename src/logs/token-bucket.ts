/**
 * At most `burst` takes at once, refilled at `perSecond`: what bounds the rows a flood of refused
 * requests can add to the log. Read from the clock on each take; nothing runs in between.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.tokens = burst;
    this.refilledAt = now();
  }

  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
