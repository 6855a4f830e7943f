import type { PermissionName } from "../access/permissions";
import type { LogFilters } from "./filters";

/** Changes one subscriber is sent per look and source at most; the rest follow at the next. */
const CHANGES_PER_LOOK = 500;

/** A stored change, as the feed sends it: its position, and the message (JSON text). */
export interface LiveChange {
  seq: number;
  message: string;
}

/**
 * What the feed reads: a table whose writes each take a position past every earlier one, so
 * that "after position n" is every change since (request logs by their rowid, MCP tool calls by
 * the change counter their start and end raise).
 */
export interface LiveSource {
  /** What a subscriber needs to be sent this source's changes. */
  readonly permission: PermissionName;
  /** The position of the last change stored now. */
  last(): Promise<number>;
  /** The changes after `seq`, oldest first, `limit` at most; `filters` narrow those that take them. */
  after(seq: number, limit: number, filters: LogFilters): Promise<LiveChange[]>;
}

/** A subscriber's way out: false when it cannot take the message (gone, or too far behind). */
export type Deliver = (message: string) => boolean;

interface Subscriber {
  filters: LogFilters;
  /** Per source, the last change it was sent (or the last stored when it subscribed). */
  cursors: Map<LiveSource, number>;
  deliver: Deliver;
}

/**
 * Changes to the logs as they are stored, for the dashboard's live view: each subscriber is sent
 * every new change of the sources it may read, in the order stored. Changes are read from the
 * tables, so a subscriber sees what every node of the deployment wrote, not only this one; the
 * tables are looked at every `intervalMs` while anyone subscribes, and not at all otherwise.
 */
export class LiveFeed {
  private readonly subscribers = new Set<Subscriber>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    readonly sources: readonly LiveSource[],
    private readonly intervalMs = 500,
  ) {}

  /** Starts after the last change stored now in each source; resolves to the unsubscribe once the subscriber is in. */
  async subscribe(sources: readonly LiveSource[], filters: LogFilters, deliver: Deliver): Promise<() => void> {
    const cursors = new Map(await Promise.all(sources.map(async (source) => [source, await source.last()] as const)));
    const subscriber: Subscriber = { filters: { ...filters, window: {} }, cursors, deliver };
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
    await Promise.all([...this.subscribers].flatMap((subscriber) => [...subscriber.cursors.keys()].map((source) => this.catchUp(subscriber, source))));
    this.timer = undefined;
    this.schedule();
  }

  private async catchUp(subscriber: Subscriber, source: LiveSource): Promise<void> {
    try {
      for (const change of await source.after(subscriber.cursors.get(source)!, CHANGES_PER_LOOK, subscriber.filters)) {
        if (!this.subscribers.has(subscriber)) return;
        subscriber.cursors.set(source, change.seq);
        if (!subscriber.deliver(change.message)) this.subscribers.delete(subscriber);
      }
    } catch (error) {
      // The next look tries again from the same change.
      console.error("live feed: reading new changes failed", error);
    }
  }
}
