import { encodeSSE } from "../http/sse";
import { FailureStreak } from "../db/failure-streak";
import { type ActorRecords, type TransitionView, transitionView } from "./actor-records";
import type { ActorEventsQuery } from "./schemas";

/** How often the feed reads the transitions committed since its last read (by any node), while someone listens. */
export const FEED_POLL_MS = 250;
const KEEP_ALIVE_MS = 10_000;
const READ_LIMIT = 1000;

type Listener = (transition: TransitionView) => void;

/**
 * GET /api/actors/events: transitions as server-sent events. One reader per node follows the
 * transition table by its sequence, so a transition shows once it is committed, whichever node
 * made it; nothing is read while nobody listens.
 */
export class TransitionFeed {
  private readonly listeners = new Set<Listener>();
  private timer?: ReturnType<typeof setInterval>;
  private following?: Promise<void>;
  private reading = false;
  private after = 0;
  private readonly failures = new FailureStreak("following actor transitions");

  constructor(private readonly records: ActorRecords) {}

  /** An SSE response of the transitions matching `filter`, from now on, until the client leaves. */
  async stream(filter: ActorEventsQuery): Promise<Response> {
    await this.ensureFollowing();
    let listener: Listener | undefined;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      if (listener) this.unsubscribe(listener);
      clearInterval(keepAlive);
    };
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        listener = (transition) => {
          if (filter.kind && transition.kind !== filter.kind) return;
          if (filter.id && transition.id !== filter.id) return;
          controller.enqueue(encodeSSE(transition, "transition"));
        };
        this.listeners.add(listener);
        controller.enqueue(new TextEncoder().encode(": following actor transitions\n\n"));
        keepAlive = setInterval(() => controller.enqueue(new TextEncoder().encode(": keep-alive\n\n")), KEEP_ALIVE_MS);
      },
      cancel: stop,
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } });
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.following = undefined;
    this.listeners.clear();
  }

  /** Starts reading from the latest transition, once for all the listeners. */
  private ensureFollowing(): Promise<void> {
    this.following ??= this.records.lastSeq().then((seq) => {
      this.after = seq;
      this.timer = setInterval(() => void this.read(), FEED_POLL_MS);
      this.timer.unref?.();
    });
    return this.following;
  }

  private unsubscribe(listener: Listener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.close();
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      for (;;) {
        const rows = await this.records.transitionsAfter(this.after, READ_LIMIT);
        for (const row of rows) {
          this.after = row.seq;
          const view = transitionView(row);
          for (const listener of this.listeners) listener(view);
        }
        if (rows.length < READ_LIMIT) break;
      }
      this.failures.succeeded();
    } catch (error) {
      this.failures.failed(error);
    } finally {
      this.reading = false;
    }
  }
}
