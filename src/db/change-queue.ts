/**
 * Changes to a registry of stored things (API writes, and reloads of what another node wrote)
 * run one at a time, in the order they were asked for; one that fails does not stop the next.
 */
export class ChangeQueue {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(change: () => Promise<T>): Promise<T> {
    const run = this.last.then(change, change);
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every change asked for so far has run. */
  async idle(): Promise<void> {
    await this.last;
  }
}
