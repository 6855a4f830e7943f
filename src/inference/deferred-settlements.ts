/**
 * Settlements (logging, metrics, usage charging) wait for the next turn of the event loop, so
 * the response leaves first. `drain()` runs the waiting ones at once: a stopping gateway calls
 * it before closing the logs, and loses none.
 */
export class DeferredSettlements {
  private pending: Array<() => void> = [];
  private scheduled = false;

  defer(settle: () => void): void {
    this.pending.push(settle);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  drain(): void {
    this.scheduled = false;
    const due = this.pending;
    this.pending = [];
    for (const settle of due) {
      try {
        settle();
      } catch (error) {
        // One settlement's failure must not cost the others their logs and charges.
        console.error("a settlement failed", error);
      }
    }
  }
}
