import { exceeded } from "../governance/limits/enforce-limits";
import type { Reservation } from "../governance/limits/reservations";
import type { AppliedLimit } from "../governance/limits/applied-limits";
import { type CounterReading, type CounterWindow, currentWindow, type LimitCounters, readingOf } from "../governance/limits/limit-counters";
import { GatewayError } from "../http/errors";
import type { PrimaryMessage, Reply, SharedWindow, WorkerMessage } from "./messages";

/** A message the first process answers, before `ask` numbers it (Omit taken of each kind on its own). */
type Question = WorkerMessage extends infer M ? (M extends { id: number } ? Omit<M, "id"> : never) : never;

const primaryGone = () =>
  new GatewayError({ status: 503, errorType: "gateway_worker_stopping", message: "this gateway worker lost its first process and is stopping; send the request again" });

/**
 * A worker's budget and rate-limit counters (`server.workers`): admission asks the first
 * process, which holds the counters of every worker, and charges go to it; reads answer from
 * the windows it sends, at most one message behind.
 */
export class SharedCounters implements LimitCounters {
  private readonly windows = new Map<string, CounterWindow>();
  private readonly waiting = new Map<number, PromiseWithResolvers<Reply>>();
  private lastId = 0;
  private connected = true;

  constructor(
    private readonly send: (message: WorkerMessage) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes in a message of the first process. */
  receive(message: PrimaryMessage): void {
    if (message.type === "windows") return this.take(message.windows);
    const waiting = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    waiting?.resolve(message);
  }

  /** The first process is gone: what waits for it is refused, and nothing more is asked. */
  disconnected(): void {
    this.connected = false;
    for (const waiting of this.waiting.values()) waiting.reject(primaryGone());
    this.waiting.clear();
  }

  read(limit: AppliedLimit): CounterReading {
    return readingOf(currentWindow(this.windows.get(limit.counterId), limit, this.clock()), limit);
  }

  add(limit: AppliedLimit, amount: number): void {
    if (amount > 0 && this.connected) this.send({ type: "add", limit, amount });
  }

  takeBack(counterId: string, windowStart: number, windowMs: number, amount: number): void {
    if (amount > 0 && this.connected) this.send({ type: "take-back", counterId, windowStart, windowMs, amount });
  }

  admit(limits: readonly AppliedLimit[], now: number, spends: boolean, reserve: number): Promise<Reservation | undefined> | undefined {
    if (!limits.some((limit) => spends || limit.kind === "requests")) return undefined;
    const ticket = this.lastId + 1;
    return this.ask({ type: "admit", limits: [...limits], spends, reserve }).then(({ refused, reservation }) => {
      if (refused) throw exceeded(limits[refused.index]!, refused.reading, now);
      return reservation && { ...reservation, ticket };
    });
  }

  release(reservation: Reservation | undefined): void {
    if (reservation?.ticket !== undefined && this.connected) this.send({ type: "release", ticket: reservation.ticket });
  }

  async load(): Promise<void> {
    const { windows = [] } = await this.ask({ type: "join" });
    this.take(windows);
  }

  startFlushing(): void {}

  /** Waits until the first process has counted every charge this worker sent: it saves them. */
  async close(): Promise<void> {
    if (this.connected) await this.ask({ type: "sync" }).catch(() => {});
  }

  private ask(question: Question): Promise<Reply> {
    if (!this.connected) return Promise.reject(primaryGone());
    const id = ++this.lastId;
    const waiting = Promise.withResolvers<Reply>();
    this.waiting.set(id, waiting);
    this.send({ ...question, id } as WorkerMessage);
    return waiting.promise;
  }

  private take(windows: readonly SharedWindow[]): void {
    for (const [counterId, used, start] of windows) this.windows.set(counterId, { used, start });
  }
}
