import { badRequest } from "../../http/errors";
import type { BudgetSpec, RateLimitSpec } from "../../db/schema/types";
import { canAlignToCalendar, parsePeriod } from "./periods";

/**
 * Budgets as stored: calendar alignment only where a calendar boundary exists. On an update,
 * a budget that leaves `calendar_aligned` out keeps the alignment of the current budget with the
 * same window: flipping it would start a new counter, and the spend so far would be forgotten.
 */
export function checkBudgets(budgets: readonly BudgetSpec[] | undefined, param: string, current: readonly BudgetSpec[] = []): BudgetSpec[] {
  return (budgets ?? []).map((budget, index) => {
    const field = `${param}[${index}]`;
    const period = parsePeriod(budget.reset_duration, `${field}.reset_duration`);
    const calendarAligned = budget.calendar_aligned ?? current.find((kept) => kept.reset_duration === budget.reset_duration)?.calendar_aligned ?? false;
    if (calendarAligned && !canAlignToCalendar(period)) {
      throw badRequest(`${field}.calendar_aligned needs a reset_duration in days, weeks, months or years, not '${budget.reset_duration}'`, `${field}.calendar_aligned`);
    }
    return { max_limit: budget.max_limit, reset_duration: budget.reset_duration, calendar_aligned: calendarAligned };
  });
}

/** A limit and its reset duration come together; an empty rate limit is stored as none. */
export function checkRateLimit(spec: RateLimitSpec | null | undefined, param: string): RateLimitSpec | null {
  if (!spec) return null;
  for (const kind of ["token", "request"] as const) {
    const max = spec[`${kind}_max_limit`];
    const duration = spec[`${kind}_reset_duration`];
    if ((max === undefined) !== (duration === undefined)) {
      const [missing, present] = max === undefined ? [`${kind}_max_limit`, `${kind}_reset_duration`] : [`${kind}_reset_duration`, `${kind}_max_limit`];
      throw badRequest(`${param}.${missing} is required when ${param}.${present} is set`, `${param}.${missing}`);
    }
  }
  for (const field of ["token_reset_duration", "request_reset_duration"] as const) {
    const duration = spec[field];
    if (duration !== undefined) parsePeriod(duration, `${param}.${field}`);
  }
  const checked: RateLimitSpec = {};
  if (spec.token_max_limit !== undefined) Object.assign(checked, { token_max_limit: spec.token_max_limit, token_reset_duration: spec.token_reset_duration });
  if (spec.request_max_limit !== undefined) Object.assign(checked, { request_max_limit: spec.request_max_limit, request_reset_duration: spec.request_reset_duration });
  return Object.keys(checked).length > 0 ? checked : null;
}
