import { and, asc, gt, max } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import { LOG_SUMMARY_COLUMNS, logView } from "./search";
import type { ReadDatabase } from "./worker-reader";

/** Rows one subscriber is sent per look at most; the rest follow at the next. */
const ROWS_PER_LOOK = 500;

export type LogView = ReturnType<typeof logView>;

/** A subscriber's way out: false when it cannot take the row (gone, or too far behind). */
export type DeliverLog = (log: LogView) => boolean;

interface Subscriber {
  filters: LogFilters;
  /** The last row it was sent (or the table's last row when it subscribed). */
  afterSeq: number;
  deliver: DeliverLog;
}

/**
 * Request logs as they are stored, for the dashboard's live view: each subscriber is sent every
 * new row its filters match, in the order stored. Rows are read from the table, so a subscriber
 * sees what every node of the deployment wrote, not only this one; the table is looked at every
 * `intervalMs` while anyone subscribes, and not at all otherwise.
 */
export class LiveLogFeed {
  private readonly subscribers = new Set<Subscriber>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly read: ReadDatabase,
    private readonly intervalMs = 500,
  ) {}

  /** Starts after the last row stored now; resolves to the unsubscribe once the subscriber is in. */
  async subscribe(filters: LogFilters, deliver: DeliverLog): Promise<() => void> {
    const [last] = await this.read.select({ seq: max(requestLogs.seq) }).from(requestLogs);
    const subscriber: Subscriber = { filters: { ...filters, window: {} }, afterSeq: last?.seq ?? 0, deliver };
    this.subscribers.add(subscriber);
    this.schedule();
    return () => this.subscribers.delete(subscriber);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.subscribers.clear();
  }

  private schedule(): void {
    if (this.timer || this.closed || this.subscribers.size === 0) return;
    this.timer = setTimeout(() => void this.look(), this.intervalMs);
    this.timer.unref?.();
  }

  private async look(): Promise<void> {
    await Promise.all([...this.subscribers].map((subscriber) => this.catchUp(subscriber)));
    this.timer = undefined;
    this.schedule();
  }

  private async catchUp(subscriber: Subscriber): Promise<void> {
    try {
      const rows = await this.read
        .select(LOG_SUMMARY_COLUMNS)
        .from(requestLogs)
        .where(and(gt(requestLogs.seq, subscriber.afterSeq), logConditions(subscriber.filters)))
        .orderBy(asc(requestLogs.seq))
        .limit(ROWS_PER_LOOK);
      for (const row of rows) {
        if (!this.subscribers.has(subscriber)) return;
        subscriber.afterSeq = row.seq;
        if (!subscriber.deliver(logView(row))) this.subscribers.delete(subscriber);
      }
    } catch (error) {
      // The next look tries again from the same row.
      console.error("live logs: reading new rows failed", error);
    }
  }
}
