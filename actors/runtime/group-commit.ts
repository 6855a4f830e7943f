import { refusedByTable, retried } from "../../src/db/write-retries";

export interface GroupCommitOptions {
  /** The most writes one transaction takes (default 1000). */
  maxWrites?: number;
  /** Waits before each new attempt at a batch the database did not take (none by default). */
  retryDelaysMs?: readonly number[];
}

/**
 * Writes from many actors committed together: whatever queued while the previous transaction
 * ran goes into the next one, so a burst of transitions costs one commit (one fsync), not one
 * each. Order is kept: an actor's writes land in the order it made them.
 */
export class GroupCommit<TWrite> {
  private queue: Array<{ writes: TWrite[]; done: PromiseWithResolvers<void> }> = [];
  private draining?: Promise<void>;
  private retriedBatches = 0;

  constructor(
    private readonly commit: (writes: TWrite[]) => Promise<void>,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /** Batches the database did not take at first and that were tried again. */
  get retries(): number {
    return this.retriedBatches;
  }

  write(writes: TWrite[]): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.queue.push({ writes, done });
    this.draining ??= this.drain();
    return done.promise;
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    // Let the transitions of this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) await this.commitBatch(this.takeBatch());
    this.draining = undefined;
  }

  private takeBatch() {
    let size = 0;
    let taken = 0;
    const maxWrites = this.options.maxWrites ?? 1000;
    while (taken < this.queue.length && (taken === 0 || size + this.queue[taken]!.writes.length <= maxWrites)) size += this.queue[taken++]!.writes.length;
    return this.queue.splice(0, taken);
  }

  /**
   * A batch the database does not take is tried again while the writes behind it wait, so an
   * outage of the database delays them in order and loses none. One that still fails is tried
   * entry by entry, once each, so one bad write fails only its own caller.
   */
  private async commitBatch(batch: Array<{ writes: TWrite[]; done: PromiseWithResolvers<void> }>, retryDelaysMs = this.options.retryDelaysMs ?? []): Promise<void> {
    try {
      const writes = batch.flatMap((entry) => entry.writes);
      await retried(() => this.commit(writes), { delaysMs: retryDelaysMs, refuses: refusedByTable, onRetry: () => this.retriedBatches++ });
      for (const entry of batch) entry.done.resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.done.reject(error);
      for (const entry of batch) await this.commitBatch([entry], []);
    }
  }
}
