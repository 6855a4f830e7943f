export interface StoredEvent {
  seq: number;
  event: string;
}

/**
 * A stream's events on their way to the database: gathered for `flushMs` after the first one
 * waiting, then written in one batch (a stream of thousands of tokens writes a few times a
 * second, not once per token). Batches are written one after another, in order.
 */
export class EventBatches {
  private waiting: StoredEvent[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly flushMs: number,
    private readonly write: (events: StoredEvent[]) => Promise<void>,
  ) {}

  add(event: StoredEvent): void {
    this.waiting.push(event);
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.flushMs);
  }

  /** Writes what waits now; resolves once every batch so far is written (rejects when the last could not be). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.waiting;
    this.waiting = [];
    if (events.length > 0) this.writing = this.writing.catch(() => undefined).then(() => this.write(events));
    return this.writing;
  }
}
