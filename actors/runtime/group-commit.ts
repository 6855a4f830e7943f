import { refusedForItsValues } from "../../src/db/unavailable";
import { retried } from "../../src/db/write-retries";

export interface GroupCommitOptions {
  /** The most writes one transaction takes (default 1000). */
  maxWrites?: number;
  /**
   * Waits before each new attempt at a batch the database did not take (none by default), for
   * writes made with `retry`; past the last, attempts go on at that wait until `giveUp()`.
   */
  retryDelaysMs?: readonly number[];
}

interface Entry<TWrite> {
  writes: TWrite[];
  retry: boolean;
  done: PromiseWithResolvers<void>;
}

/**
 * Writes from many actors committed together: whatever queued while the previous transaction
 * ran goes into the next one, so a burst of transitions costs one commit (one fsync), not one
 * each. Order is kept: an actor's writes land in the order it made them.
 */
export class GroupCommit<TWrite> {
  private queue: Array<Entry<TWrite>> = [];
  private draining?: Promise<void>;
  private retriedBatches = 0;
  private readonly stopping = new AbortController();

  constructor(
    private readonly commit: (writes: TWrite[]) => Promise<void>,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /** Batches the database did not take at first and that were tried again. */
  get retries(): number {
    return this.retriedBatches;
  }

  /**
   * Queues writes for the next commit. With `retry`, a database out of reach delays them (and
   * the writes behind them) instead of failing them: for writes nobody waits on, an actor's
   * transitions; a caller answering a request is told at once.
   */
  write(writes: TWrite[], { retry = false } = {}): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.queue.push({ writes, retry, done });
    this.draining ??= this.drain();
    return done.promise;
  }

  /** From now on a batch the database does not take is tried once more, then fails: a stopping node does not wait out an outage. */
  giveUp(): void {
    this.stopping.abort();
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
   * outage of the database delays them in order and loses none; its writes made without
   * `retry` fail at the first refusal. One that still fails is tried entry by entry, once each,
   * so one bad write fails only its own caller.
   */
  private async commitBatch(batch: Array<Entry<TWrite>>, retryDelaysMs = this.options.retryDelaysMs ?? []): Promise<void> {
    let waiting = batch;
    try {
      await retried(() => this.commit(waiting.flatMap((entry) => entry.writes)), {
        delaysMs: retryDelaysMs,
        until: this.stopping.signal,
        // Nothing left to wait for when no write of the batch asked to.
        refuses: (error) => refusedForItsValues(error) || !waiting.some((entry) => entry.retry),
        onRetry: (error) => {
          this.retriedBatches++;
          for (const entry of waiting) if (!entry.retry) entry.done.reject(error);
          waiting = waiting.filter((entry) => entry.retry);
        },
      });
      for (const entry of waiting) entry.done.resolve();
    } catch (error) {
      if (waiting.length === 1) return waiting[0]!.done.reject(error);
      for (const entry of waiting) await this.commitBatch([entry], []);
    }
  }
}
