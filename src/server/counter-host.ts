import { refusedLimit, reserveRequests } from "../governance/limits/enforce-limits";
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
  private readonly links = new Set<WorkerLink>();
  private moved = new Map<string, CounterWindow>();
  private sending = false;

  constructor(private readonly counters: UsageCounters) {
    counters.watch((counterId, window) => this.note(counterId, window));
  }

  attach(link: WorkerLink): void {
    this.links.add(link);
  }

  detach(link: WorkerLink): void {
    this.links.delete(link);
  }

  answer(link: WorkerLink, message: WorkerMessage): void {
    switch (message.type) {
      case "join":
        return link.send({ type: "reply", id: message.id, windows: this.counters.windowsNow().map(shared) });
      case "admit":
        return link.send(this.admit(message.id, message.limits, message.spends));
      case "add":
        return this.counters.add(message.limit, message.amount);
      case "take-back":
        return this.counters.takeBack(message.counterId, message.windowStart, message.windowMs, message.amount);
      case "sync":
        // Messages arrive in order: everything this worker sent before is counted.
        return link.send({ type: "reply", id: message.id });
    }
  }

  private admit(id: number, limits: WorkerMessageOf<"admit">["limits"], spends: boolean): Reply {
    const refused = refusedLimit(this.counters, limits, spends);
    if (refused) return { type: "reply", id, refused: { index: limits.indexOf(refused.limit), reading: refused.reading } };
    reserveRequests(this.counters, limits);
    return { type: "reply", id };
  }

  private note(counterId: string, window: CounterWindow): void {
    this.moved.set(counterId, window);
    if (this.sending) return;
    this.sending = true;
    setImmediate(() => {
      this.sending = false;
      const windows = [...this.moved].map(shared);
      this.moved = new Map();
      for (const link of this.links) link.send({ type: "windows", windows });
    });
  }
}
