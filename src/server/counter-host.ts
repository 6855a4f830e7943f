import { refusedLimit, reserveAdmitted } from "../governance/limits/enforce-limits";
import type { Reservation } from "../governance/limits/reservations";
import type { CounterWindow } from "../governance/limits/limit-counters";
import type { UsageCounters } from "../governance/limits/usage-counters";
import type { PrimaryMessage, Reply, SharedWindow, WorkerMessage, WorkerMessageOf } from "./messages";

/** One worker's end of the channel, as the first process holds it. */
export interface WorkerLink {
  send(message: PrimaryMessage): void;
}

const shared = ([counterId, window]: [string, CounterWindow]): SharedWindow => [counterId, window.used, window.start];

/**
 * The first process's side of the shared counters: every worker's check and reservation runs
 * here, on the one set of counters, in one synchronous step, so the workers together admit
 * exactly as one process would. The windows counters move to are sent to every worker once a
 * turn, for what workers only read (usage reports, routing rules on usage).
 */
export class CounterHost {
  /** Each worker's reservations on budgets, by the admission that made them: a worker that dies leaves none behind. */
  private readonly links = new Map<WorkerLink, Map<number, Reservation>>();
  private moved = new Map<string, CounterWindow>();
  private sending = false;

  constructor(private readonly counters: UsageCounters) {
    counters.watch((counterId, window) => this.note(counterId, window));
  }

  attach(link: WorkerLink): void {
    this.links.set(link, new Map());
  }

  detach(link: WorkerLink): void {
    for (const reservation of this.links.get(link)?.values() ?? []) this.counters.release(reservation);
    this.links.delete(link);
  }

  answer(link: WorkerLink, message: WorkerMessage): void {
    switch (message.type) {
      case "join":
        return link.send({ type: "reply", id: message.id, windows: this.counters.windowsNow().map(shared) });
      case "admit":
        return link.send(this.admit(link, message));
      case "release":
        return this.release(link, message.ticket);
      case "add":
        return this.counters.add(message.limit, message.amount);
      case "take-back":
        return this.counters.takeBack(message.counterId, message.windowStart, message.windowMs, message.amount);
      case "sync":
        // Messages arrive in order: everything this worker sent before is counted.
        return link.send({ type: "reply", id: message.id });
    }
  }

  private admit(link: WorkerLink, { id, limits, spends, reserve }: WorkerMessageOf<"admit">): Reply {
    const { holds } = this.counters;
    const refused = refusedLimit(this.counters, limits, spends, holds);
    if (refused) return { type: "reply", id, refused: { index: limits.indexOf(refused.limit), reading: refused.reading } };
    const reservation = reserveAdmitted(this.counters, limits, spends, holds, reserve);
    if (reservation) this.links.get(link)?.set(id, reservation);
    return { type: "reply", id, reservation };
  }

  private release(link: WorkerLink, ticket: number): void {
    const reservations = this.links.get(link);
    this.counters.release(reservations?.get(ticket));
    reservations?.delete(ticket);
  }

  private note(counterId: string, window: CounterWindow): void {
    this.moved.set(counterId, window);
    if (this.sending) return;
    this.sending = true;
    setImmediate(() => {
      this.sending = false;
      const windows = [...this.moved].map(shared);
      this.moved = new Map();
      for (const link of this.links.keys()) link.send({ type: "windows", windows });
    });
  }
}
