import type { BudgetForecast } from "../budget-forecast/schema";
import type { AlertScope } from "../db/schema/alerts";

export type { BudgetForecast };

/** One budget as governance reports it (GET /api/governance/budgets). */
export interface BudgetReading {
  level: "virtual_key" | "provider_config" | "team" | "customer";
  owner_id: string;
  owner_name: string;
  max_limit: number;
  reset_duration: string;
  current_usage: number;
  resets_at: string;
}

/** The windows the spend rate is measured over: the last hour (what is happening now) and the last day (the usual pace). */
export const FORECAST_WINDOWS = { short: 3_600_000, long: 86_400_000 } as const;

/** USD the owner's requests cost in the `windowMs` before now; the owner as /api/logs filters. */
export type SpendIn = (owner: Record<string, string>, windowMs: number) => Promise<number>;

/** Whose budget it is: a provider config's id is `<virtual key id>/<provider>`. */
export type BudgetOwner = Pick<BudgetReading, "level" | "owner_id">;

/** The request-log filters of a budget's owner. */
export function ownerQuery(budget: BudgetOwner): Record<string, string> {
  if (budget.level === "team") return { team_ids: budget.owner_id };
  if (budget.level === "customer") return { customer_ids: budget.owner_id };
  if (budget.level === "virtual_key") return { virtual_key_ids: budget.owner_id };
  const [virtualKeyId = "", provider = ""] = budget.owner_id.split("/");
  return { virtual_key_ids: virtualKeyId, providers: provider };
}

/** The budgets a rule of this scope watches: all of them for global, the owner's otherwise (a key's includes its provider configs'). */
export function budgetsInScope(budgets: BudgetReading[], { scope, scopeId }: { scope: AlertScope; scopeId: string | null }): BudgetReading[] {
  if (scope === "global") return budgets;
  if (scope === "virtual_key") return budgets.filter((budget) => (budget.level === "virtual_key" && budget.owner_id === scopeId) || (budget.level === "provider_config" && budget.owner_id.startsWith(`${scopeId}/`)));
  if (scope === "team" || scope === "customer") return budgets.filter((budget) => budget.level === scope && budget.owner_id === scopeId);
  if (scope === "provider") return budgets.filter((budget) => budget.level === "provider_config" && budget.owner_id.endsWith(`/${scopeId}`));
  return [];
}

interface WindowForecast {
  /** USD per hour over the window. */
  spend_per_hour: number;
  /** When the budget runs out at that rate; null when nothing was spent, or when the budget resets first. */
  exhausted_at: string | null;
}

/** Hours until the budget runs out at `perHour`, or null when never within its window. */
function hoursLeft(budget: BudgetReading, perHour: number, now: Date): number | null {
  const remaining = Math.max(0, budget.max_limit - budget.current_usage);
  if (remaining === 0) return 0;
  if (perHour <= 0) return null;
  const hours = remaining / perHour;
  return now.getTime() + hours * 3_600_000 > Date.parse(budget.resets_at) ? null : hours;
}

async function windowForecast(budget: BudgetReading, spendIn: SpendIn, windowMs: number, now: Date): Promise<WindowForecast & { hours: number | null }> {
  const perHour = (await spendIn(ownerQuery(budget), windowMs)) / (windowMs / 3_600_000);
  const hours = hoursLeft(budget, perHour, now);
  return { spend_per_hour: perHour, exhausted_at: hours === null ? null : new Date(now.getTime() + hours * 3_600_000).toISOString(), hours };
}

/**
 * When the budget will run out at the current rate, by the last hour's spend and by the last
 * day's; `hours_left` is the sooner of the two (null: not before it resets).
 */
export async function forecastOf(budget: BudgetReading, spendIn: SpendIn, now: Date): Promise<BudgetForecast> {
  const [short, long] = await Promise.all([windowForecast(budget, spendIn, FORECAST_WINDOWS.short, now), windowForecast(budget, spendIn, FORECAST_WINDOWS.long, now)]);
  const known = [short.hours, long.hours].filter((hours): hours is number => hours !== null);
  return {
    level: budget.level,
    owner_id: budget.owner_id,
    owner_name: budget.owner_name,
    max_limit: budget.max_limit,
    reset_duration: budget.reset_duration,
    current_usage: budget.current_usage,
    resets_at: budget.resets_at,
    short_window: { spend_per_hour: short.spend_per_hour, exhausted_at: short.exhausted_at },
    long_window: { spend_per_hour: long.spend_per_hour, exhausted_at: long.exhausted_at },
    hours_left: known.length === 0 ? null : Math.min(...known),
  };
}

