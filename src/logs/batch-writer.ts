import { FailureStreak } from "../db/failure-streak";
import { retried } from "../db/write-retries";
import { backgroundTimeout } from "./background-timer";

export interface BatchWriterOptions<Row> {
  /** Rows held in memory at most; a row arriving at a full queue is dropped and counted. */
  capacity: number;
  /**
   * Bytes held in memory at most, by `sizeOf`: a row that would pass them is dropped and counted,
   * unless the queue is empty. Rows vary from a kilobyte to megabytes, so a bound in rows alone
   * does not bound memory. None by default.
   */
  capacityBytes?: number;
  /** A row's size in memory, roughly, for `capacityBytes` and `maxBatchBytes`. */
  sizeOf?: (row: Row) => number;
  /** A flush starts as soon as this many rows wait. */
  batchSize: number;
  /**
   * The most rows one insert takes (default `batchSize`). While an insert runs, rows pile up;
   * taking them in one larger batch costs far less per row (one commit, one full-text segment),
   * so a writer that falls behind catches up instead of falling further behind.
   */
  maxBatchSize?: number;
  /** The most bytes one insert takes (at least one row); so many wait also start a flush. None by default. */
  maxBatchBytes?: number;
  /** A flush starts this long after the first row arrives in an empty queue. */
  flushIntervalMs: number;
  /**
   * The waits before each new attempt at a batch whose insert failed (a busy, locked or
   * unreachable database); past the last, attempts go on at that wait until `stop()`, while new
   * rows queue behind the batch (dropped only once the queue is full). None by default: a
   * failed batch counts as failed at once.
   */
  retryDelaysMs?: readonly number[];
  /** Whether an insert failed because of the rows themselves (a constraint, JSON SQLite cannot read): then retrying is pointless, and the batch is split to isolate them. */
  refusesRows?: (error: unknown) => boolean;
  /**
   * A second way to store a row the table refused on its own (without what SQLite refused in it:
   * its full-text entry, say), so that a row's content never costs the row.
   */
  storeRefusedRow?: (row: Row) => Promise<void>;
  /** Told of a row the table refused both ways, before it is settled: the last chance to keep it somewhere. */
  onRefused?: (row: Row, error: unknown) => void;
  /** Told of rows done with, in the order they were queued: stored, or refused by the table. */
  onSettled?: (rows: Row[]) => void;
  /** Told of rows given up on otherwise (a stop while the database is out of reach). */
  onGivenUp?: (rows: Row[]) => void;
}

export interface QueueStatus {
  depth: number;
  /** The queued rows' size, by the writer's `sizeOf`. */
  bytes: number;
  capacity: number;
  dropped: number;
  /** Rows lost: the table refused them, or the database was still unavailable when the writer stopped. */
  failed: number;
  /** Batch writes the database did not take and that were tried again. */
  retries: number;
}

/**
 * How many of `rows`, from `start`, fit in `maxRows` and `maxBytes` by `sizeOf` (at least one
 * while any is left: a row larger than the bytes goes alone), and their bytes.
 */
export function rowsWithin<Row>(rows: readonly Row[], start: number, maxRows: number, maxBytes: number, sizeOf: ((row: Row) => number) | undefined): { count: number; bytes: number } {
  const end = Math.min(rows.length, start + maxRows);
  let count = 0;
  let bytes = 0;
  while (start + count < end) {
    const size = sizeOf?.(rows[start + count]!) ?? 0;
    if (count > 0 && bytes + size > maxBytes) break;
    bytes += size;
    count++;
  }
  return { count, bytes };
}

/**
 * A bounded queue drained in batches by one writer at a time. `enqueue` never waits and never
 * throws, so the request that produced a row is never slowed by the database.
 */
export class BatchWriter<Row> {
  private queue: Row[] = [];
  private queuedBytes = 0;
  private dropped = 0;
  private failed = 0;
  private retries = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly outage = new FailureStreak("request log: writing a batch");

  constructor(
    private readonly insert: (rows: Row[]) => Promise<void>,
    private readonly options: BatchWriterOptions<Row>,
  ) {}

  enqueue(row: Row): boolean {
    const size = this.options.sizeOf?.(row) ?? 0;
    const overCapacity = this.queue.length >= this.options.capacity || (this.queue.length > 0 && this.queuedBytes + size > (this.options.capacityBytes ?? Infinity));
    if (overCapacity) {
      this.dropped++;
      return false;
    }
    this.queue.push(row);
    this.queuedBytes += size;
    if (this.fullBatchWaits()) this.startDraining();
    else this.timer ??= backgroundTimeout(() => this.startDraining(), this.options.flushIntervalMs);
    return true;
  }

  status(): QueueStatus {
    return { depth: this.queue.length, bytes: this.queuedBytes, capacity: this.options.capacity, dropped: this.dropped, failed: this.failed, retries: this.retries };
  }

  /** Resolves once every row queued before the call is written (or counted as failed). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.draining) {
      this.startDraining();
      await this.draining;
    }
  }

  /**
   * Writes what is queued, waiting at most `graceMs` for a database that does not take it: then
   * the batch under way, and every one behind it, is tried once more and counted as failed.
   */
  async stop(graceMs: number): Promise<void> {
    const giveUp = setTimeout(() => this.stopping.abort(), graceMs);
    try {
      await this.flush();
    } finally {
      clearTimeout(giveUp);
      this.stopping.abort();
    }
  }

  private startDraining() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      if (this.queue.length > 0) this.timer ??= backgroundTimeout(() => this.startDraining(), this.options.flushIntervalMs);
    });
  }

  // Writes one batch, then more while a full one waits. A remainder smaller than a batch waits
  // for the interval: draining it at once would commit a few rows at a time under steady
  // traffic, each commit costing as much as hundreds of rows.
  private async drain() {
    do {
      await this.write(this.nextBatch());
    } while (this.fullBatchWaits());
  }

  private fullBatchWaits(): boolean {
    return this.queue.length >= this.options.batchSize || this.queuedBytes >= (this.options.maxBatchBytes ?? Infinity);
  }

  /** The oldest rows, up to the batch limits in rows and bytes; at least one. */
  private nextBatch(): Row[] {
    const { count, bytes } = rowsWithin(this.queue, 0, this.options.maxBatchSize ?? this.options.batchSize, this.options.maxBatchBytes ?? Infinity, this.options.sizeOf);
    this.queuedBytes -= bytes;
    return this.queue.splice(0, count);
  }

  /** Rows keep queueing meanwhile: one busy spell of the database loses none, unless the queue fills. */
  private async write(batch: Row[]): Promise<void> {
    const { retryDelaysMs = [], refusesRows } = this.options;
    try {
      await retried(() => this.insert(batch), {
        delaysMs: retryDelaysMs,
        refuses: refusesRows,
        until: this.stopping.signal,
        onRetry: (error) => {
          this.retries++;
          this.outage.failed(error);
        },
      });
      this.outage.succeeded();
      this.options.onSettled?.(batch);
    } catch (error) {
      if (refusesRows?.(error)) return this.isolate(batch, error);
      this.lose(batch, error, false);
    }
  }

  /** Halves a refused batch until the refused rows stand alone: the others are written. */
  private async isolate(batch: Row[], error: unknown): Promise<void> {
    if (batch.length === 1) return this.storeRefused(batch[0]!, error);
    const middle = Math.ceil(batch.length / 2);
    await this.write(batch.slice(0, middle));
    await this.write(batch.slice(middle));
  }

  private async storeRefused(row: Row, refusal: unknown): Promise<void> {
    const { storeRefusedRow } = this.options;
    if (!storeRefusedRow) return this.lose([row], refusal, true);
    try {
      await storeRefusedRow(row);
      console.error(`request log: a row was stored without its full-text entry, which the database refused: ${String(refusal)}`);
      this.options.onSettled?.([row]);
    } catch (error) {
      this.lose([row], error, true);
    }
  }

  /** Rows the table refused are settled: no later attempt could store them. */
  private lose(batch: Row[], error: unknown, refused: boolean): void {
    this.failed += batch.length;
    console.error(`request log: ${batch.length} row${batch.length === 1 ? "" : "s"} could not be written`, error);
    if (refused) {
      for (const row of batch) this.options.onRefused?.(row, error);
      this.options.onSettled?.(batch);
    } else this.options.onGivenUp?.(batch);
  }
}
