/**
 * Settlements (logging, metrics, usage charging) wait for the next turn of the event loop, so
 * the response leaves first. `drain()` runs the waiting ones at once: a stopping gateway calls
 * it before closing the logs, and loses none. `settleNow(call)` runs one call's at once: a reply
 * whose last byte is about to leave, so its log row is in the crash journal before the client
 * can have the whole answer (a kill right after it leaves loses nothing the client saw).
 *
 * A call under way is `expect`ed, with its client's signal, until its settlement has run: a
 * stopping gateway cuts the connections of the calls still running, which aborts their upstream
 * requests, and waits in `cutSettled` for those to settle (their log rows and charges) before it
 * closes the logs. Calls with no connection to cut (a background run) are not waited for.
 */
export class DeferredSettlements {
  private pending: Array<() => void> = [];
  /** Beside each pending settlement, the expected call it ends (undefined for one that ends none): no wrapper per settlement. */
  private pendingCalls: Array<object | undefined> = [];
  private scheduled = false;
  private readonly expected = new Map<object, AbortSignal>();
  private onSettled?: () => void;
  /** Made once: a closure per deferral was an allocation per request. */
  private readonly drainLater = () => this.drain();

  /** `call` will settle here (or be `forget`-ten); `signal` aborts when its client is cut off. */
  expect(call: object, signal: AbortSignal): void {
    this.expected.set(call, signal);
  }

  /** `call` ended without anything to settle. */
  forget(call: object): void {
    this.expected.delete(call);
    this.onSettled?.();
  }

  defer(settle: () => void, call?: object): void {
    this.pending.push(settle);
    this.pendingCalls.push(call);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drainLater);
  }

  /** Runs `call`'s waiting settlement now, if it has one. */
  settleNow(call: object): void {
    const index = this.pendingCalls.indexOf(call);
    if (index < 0) return;
    const [settle] = this.pending.splice(index, 1);
    this.pendingCalls.splice(index, 1);
    this.run(settle!, call);
  }

  drain(): void {
    this.scheduled = false;
    const due = this.pending;
    const calls = this.pendingCalls;
    this.pending = [];
    this.pendingCalls = [];
    for (let index = 0; index < due.length; index++) this.run(due[index]!, calls[index]);
  }

  private run(settle: () => void, call: object | undefined): void {
    try {
      settle();
    } catch (error) {
      // One settlement's failure must not cost the others their logs and charges.
      console.error("a settlement failed", error);
    } finally {
      if (call) this.forget(call);
    }
  }

  /** Resolves once every expected call whose client was cut off has settled, or after `limitMs`. */
  async cutSettled(limitMs: number): Promise<void> {
    const deadline = performance.now() + limitMs;
    const cutUnsettled = () => [...this.expected.values()].some((signal) => signal.aborted);
    while (cutUnsettled() && performance.now() < deadline) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.onSettled = resolve;
      const timer = setTimeout(resolve, deadline - performance.now());
      await promise;
      clearTimeout(timer);
    }
    this.onSettled = undefined;
  }
}
