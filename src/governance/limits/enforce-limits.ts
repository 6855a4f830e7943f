import { GatewayError } from "../../http/errors";
import type { AppliedLimit } from "./applied-limits";
import type { CounterReading, LimitCounters } from "./limit-counters";
import type { BudgetHolds, Reservation } from "./reservations";

const LEVEL_NAMES = { virtual_key: "virtual key", provider_config: "provider config", team: "team", customer: "customer" } as const;

/**
 * Budgets answer 402 (`policy_budget_exceeded`): money ran out, and waiting a moment will not
 * help the way it does with a rate limit's 429 (`policy_rate_limited`). Both carry
 * `retry_after_ms`, the time until the window resets.
 */
export function exceeded(limit: AppliedLimit, reading: CounterReading, now: number): GatewayError {
  const owner = `${LEVEL_NAMES[limit.owner.level]} '${limit.owner.name}'`;
  const retryAfterMs = Math.max(0, reading.resetsAt - now);
  const extra = { retry_after_ms: retryAfterMs };
  if (limit.kind === "budget") {
    const message = `budget of ${owner} is exhausted: $${reading.used.toFixed(6)} of $${limit.max} used or reserved by calls under way in the ${limit.duration} window`;
    return new GatewayError({ status: 402, errorType: "policy_budget_exceeded", message, extra });
  }
  const unit = limit.kind === "tokens" ? "tokens" : "requests";
  return new GatewayError({ status: 429, errorType: "policy_rate_limited", message: `${unit} limit of ${owner} reached: ${reading.used} of ${limit.max} per ${limit.duration}`, extra });
}

/** Whether one more request fits: budgets and token limits while anything is left, request limits while a slot is. */
function hasRoom(limit: AppliedLimit, used: number): boolean {
  return limit.kind === "requests" ? used + 1 <= limit.max : used < limit.max;
}

/** Reads and adds to the counters: this process's own, or those the first of several workers keeps. */
type Counting = Pick<LimitCounters, "read" | "add">;

/**
 * The first limit one more request would pass, with its counter (a budget's counting what calls
 * under way hold on it); a call that spends nothing is held to request limits alone.
 */
export function refusedLimit(counters: Counting, limits: readonly AppliedLimit[], spends: boolean, holds?: BudgetHolds): { limit: AppliedLimit; reading: CounterReading } | undefined {
  for (const limit of limits) {
    if (!spends && limit.kind !== "requests") continue;
    const reading = counters.read(limit);
    const used = reading.used + (holds?.on(limit.counterId) ?? 0);
    if (!hasRoom(limit, used)) return { limit, reading: { ...reading, used } };
  }
  return undefined;
}

function reserveRequests(counters: Counting, limits: readonly AppliedLimit[]): void {
  for (const limit of limits) if (limit.kind === "requests") counters.add(limit, 1);
}

/**
 * Checks every limit before the upstream call, reserves a request slot on each request limit
 * and `reserve` (the call's estimated cost) on each budget. A call that spends nothing (reading
 * a video the budget paid for) is held to request limits alone. Synchronous on purpose: no other
 * request can run between the check and the reservation, so a burst stops once the calls
 * admitted have reserved the budget.
 */
export function admitWithinLimits(counters: Counting, limits: readonly AppliedLimit[], now: number, spends = true, holds?: BudgetHolds, reserve = 0): Reservation | undefined {
  const refused = refusedLimit(counters, limits, spends, holds);
  if (refused) throw exceeded(refused.limit, refused.reading, now);
  return reserveAdmitted(counters, limits, spends, holds, reserve);
}

/** What an admitted call takes until it settles: a slot of each request limit and, when it spends, `reserve` on each budget. */
export function reserveAdmitted(counters: Counting, limits: readonly AppliedLimit[], spends: boolean, holds?: BudgetHolds, reserve = 0): Reservation | undefined {
  reserveRequests(counters, limits);
  if (!spends || !holds) return undefined;
  return holds.hold(limits.filter((limit) => limit.kind === "budget").map((limit) => limit.counterId), reserve);
}

/** After the reply: the real cost on budgets, the real tokens on token limits. */
export function chargeLimits(counters: Counting, limits: readonly AppliedLimit[], usage: { cost: number; tokens: number }): void {
  for (const limit of limits) {
    if (limit.kind === "budget") counters.add(limit, usage.cost);
    else if (limit.kind === "tokens") counters.add(limit, usage.tokens);
  }
}

/** Usage in percent of the fullest limit of a kind, for routing rules (`budget_used`, ...). */
export function highestUsePercent(counters: Counting, limits: readonly AppliedLimit[], kind: AppliedLimit["kind"]): number {
  let highest = 0;
  for (const limit of limits) {
    if (limit.kind !== kind) continue;
    const percent = limit.max > 0 ? (counters.read(limit).used / limit.max) * 100 : 100;
    highest = Math.max(highest, percent);
  }
  return highest;
}
