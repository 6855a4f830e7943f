import { GatewayError } from "./errors";

/** The 408 of a body still arriving at the deadline; the connection is closed with it. */
const bodyTooSlow = (timeoutMs: number) =>
  new GatewayError({ status: 408, errorType: "caller_request_timeout", message: `the request body did not arrive in full within ${timeoutMs / 1000} s (server.body_timeout_seconds)`, param: "body" });

/** How often the waiting reads are looked at: the refusal comes at most this long after the deadline. */
const sweepEveryMs = (timeoutMs: number) => Math.min(1_000, Math.max(10, timeoutMs / 4));

/**
 * Body reads, each refused once `timeoutMs` has passed since it began: a client that trickles its
 * body a byte at a time never lets the idle timeout fire, and would hold its connection and the
 * handler forever. Every request body is read through here, so a read costs no timer, race or
 * async step of its own: one sweep, running while reads wait, refuses those past their time and
 * forgets those done.
 */
export class BodyDeadlines {
  /** Each read's own promise, with when it must be in by (performance.now()). */
  private readonly waiting = new Map<PromiseWithResolvers<unknown>, number>();
  private sweeper?: ReturnType<typeof setInterval>;
  private readonly sweepBound = () => this.sweep();

  constructor(private readonly timeoutMs: number) {}

  /** `reading`, or the 408 when it is not done in time. */
  within<T>(reading: Promise<T>): Promise<T> {
    const read = Promise.withResolvers<T>();
    reading.then(read.resolve, read.reject);
    this.waiting.set(read as PromiseWithResolvers<unknown>, performance.now() + this.timeoutMs);
    if (!this.sweeper) {
      this.sweeper = setInterval(this.sweepBound, sweepEveryMs(this.timeoutMs));
      this.sweeper.unref();
    }
    return read.promise;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [read, due] of this.waiting) {
      if (Bun.peek.status(read.promise) !== "pending") this.waiting.delete(read);
      else if (due <= now) {
        read.reject(bodyTooSlow(this.timeoutMs));
        this.waiting.delete(read);
      }
    }
    if (this.waiting.size > 0) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
