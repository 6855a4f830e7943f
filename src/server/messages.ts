import type { AppliedLimit } from "../governance/limits/applied-limits";
import type { Reservation } from "../governance/limits/reservations";
import type { CounterReading } from "../governance/limits/limit-counters";

/** A counter's window as the first process sends it: id, usage, start. */
export type SharedWindow = [counterId: string, used: number, start: number];

/** What a worker asks the first process; those with an `id` are answered by a Reply with the same id. */
export type WorkerMessage =
  | { type: "join"; id: number }
  | { type: "admit"; id: number; limits: AppliedLimit[]; spends: boolean; reserve: number }
  | { type: "add"; limit: AppliedLimit; amount: number }
  | { type: "take-back"; counterId: string; windowStart: number; windowMs: number; amount: number }
  | { type: "release"; ticket: number }
  | { type: "sync"; id: number }
  | { type: "ready" };

export interface Reply {
  type: "reply";
  id: number;
  /** To `join`: every counter's window. */
  windows?: SharedWindow[];
  /** To `admit`: the first limit the request would pass (its index among those asked) and its counter. */
  refused?: { index: number; reading: CounterReading };
  /** To `admit`: what was reserved on budgets, which the worker gives back (`release`, by the admission's id) when the call settles. */
  reservation?: Reservation;
}

/** What the first process sends a worker: answers, and the windows counters moved to. */
export type PrimaryMessage = Reply | { type: "windows"; windows: SharedWindow[] };

export type WorkerMessageOf<T extends WorkerMessage["type"]> = Extract<WorkerMessage, { type: T }>;
