import type { BudgetSpec, RateLimitSpec } from "../../db/schema/types";
import { type Period, parsePeriod } from "./periods";

export type LimitKind = "budget" | "tokens" | "requests";
export type LimitLevel = "virtual_key" | "provider_config" | "team" | "customer";

/** Who a limit belongs to; a provider config's id is `<virtual key id>/<provider>`. */
export interface LimitOwner {
  level: LimitLevel;
  id: string;
  name: string;
}

/** One budget, token limit or request limit, ready to be checked against its counter. */
export interface AppliedLimit {
  counterId: string;
  kind: LimitKind;
  owner: LimitOwner;
  /** USD for budgets, tokens or requests otherwise. */
  max: number;
  duration: string;
  period: Period;
  calendarAligned: boolean;
}

function applied(owner: LimitOwner, kind: LimitKind, max: number, duration: string, calendarAligned = false): AppliedLimit {
  // Same owner, kind and window share a counter, so raising a limit keeps what was already used.
  const counterId = `${owner.level}:${owner.id}:${kind}:${duration}${calendarAligned ? ":calendar" : ""}`;
  return { counterId, kind, owner, max, duration, period: parsePeriod(duration, "reset_duration"), calendarAligned };
}

export function budgetLimits(owner: LimitOwner, budgets: readonly BudgetSpec[]): AppliedLimit[] {
  return budgets.map((budget) => applied(owner, "budget", budget.max_limit, budget.reset_duration, budget.calendar_aligned ?? false));
}

export function rateLimits(owner: LimitOwner, spec: RateLimitSpec | null | undefined): AppliedLimit[] {
  const limits: AppliedLimit[] = [];
  if (spec?.token_max_limit !== undefined && spec.token_reset_duration) limits.push(applied(owner, "tokens", spec.token_max_limit, spec.token_reset_duration));
  if (spec?.request_max_limit !== undefined && spec.request_reset_duration) limits.push(applied(owner, "requests", spec.request_max_limit, spec.request_reset_duration));
  return limits;
}
