import { and, isNotNull, sql } from "drizzle-orm";
import type { AlertScope } from "../db/schema/alerts";
import { requestLogs } from "../db/schema/logs";
import { total, usageColumns } from "../logs/aggregates";
import { logConditions } from "../logs/conditions";
import { type LogFilterQuery, readLogFilters } from "../logs/filters";
import type { ReadDatabase } from "../logs/worker-reader";
import { type BudgetReading, budgetsInScope, forecastOf, type SpendIn } from "./forecast";

/** The figures a rule's condition may read, each with what it means (the API's 400 and docs list them). */
export const FIGURES = {
  requests: "requests in the window",
  errors: "requests that ended in an error in the window",
  error_rate: "errors / requests in the window, 0..1 (0 without requests)",
  cost: "USD spent in the window",
  p99_latency_ms: "99th percentile of latency in the window, ms (0 without requests)",
  ttft_p95_ms: "95th percentile of time to first token of streamed replies in the window, ms",
  rate_limited: "requests answered 429 in the window",
  guardrail_blocks: "requests a guardrail blocked in the window",
  budget_used_fraction: "the fullest budget of the scope (all budgets for global): used / limit, 0..1+",
  projected_exhaustion_hours: "hours until the first budget of the scope runs out at the current rate (the sooner of the last hour's and the last day's); very large when nothing is spent",
  open_keys: "provider keys whose circuit breaker is open (of the scope's provider, or all)",
  providers_all_keys_open: "providers whose keys are all open (0 or 1 for a provider scope)",
  webhook_endpoints_disabled: "webhook endpoints disabled automatically",
} as const;
export type FigureName = keyof typeof FIGURES;
export const FIGURE_NAMES = Object.keys(FIGURES) as FigureName[];

/** What the figures are read from, given by the composition root. */
export interface FigureSources {
  read: ReadDatabase;
  budgets(): BudgetReading[];
  /** Each provider with how many keys it has and how many are open. */
  providerKeys(): Array<{ provider: string; keys: number; open: number }>;
  disabledWebhookEndpoints(): number;
  now(): number;
}

export interface RuleScope {
  scope: AlertScope;
  scopeId: string | null;
}

const SCOPE_FILTER: Record<Exclude<AlertScope, "global">, keyof LogFilterQuery> = {
  provider: "providers",
  model: "models",
  virtual_key: "virtual_key_ids",
  team: "team_ids",
  customer: "customer_ids",
};

/** The request-log filters of a scope, as /api/logs takes them: also the dashboard link of a notification. */
export function scopeQuery({ scope, scopeId }: RuleScope): Record<string, string> {
  return scope === "global" || !scopeId ? {} : { [SCOPE_FILTER[scope]]: scopeId };
}

const LOG_FIGURES: FigureName[] = ["requests", "errors", "error_rate", "cost", "rate_limited"];

async function requestTotals(sources: FigureSources, query: LogFilterQuery, now: Date) {
  const filters = readLogFilters(query, now);
  const [row] = await sources.read
    .select({ requests: usageColumns.requests, errors: usageColumns.errors, cost: usageColumns.cost, rateLimited: total(sql`${requestLogs.statusCode} = 429`) })
    .from(requestLogs)
    .where(logConditions(filters));
  const { requests = 0, errors = 0, cost = 0, rateLimited = 0 } = row ?? {};
  return { requests, errors, error_rate: requests === 0 ? 0 : errors / requests, cost, rate_limited: rateLimited };
}

async function percentile(sources: FigureSources, query: LogFilterQuery, now: Date, column: typeof requestLogs.latencyMs | typeof requestLogs.timeToFirstTokenMs, rank: number) {
  const filters = readLogFilters(query, now);
  const values = sql<string>`json_group_array(${column})`;
  const [value] = await sources.read.percentilesOf(sources.read.select({ values }).from(requestLogs).where(and(logConditions(filters), isNotNull(column))), [rank]);
  return value ?? 0;
}

async function guardrailBlocks(sources: FigureSources, query: LogFilterQuery, now: Date) {
  const [row] = await sources.read.select({ requests: usageColumns.requests }).from(requestLogs).where(logConditions(readLogFilters({ ...query, guardrail_actions: "block" }, now)));
  return row?.requests ?? 0;
}

function keyFigures(sources: FigureSources, rule: RuleScope) {
  const providers = sources.providerKeys().filter((entry) => rule.scope !== "provider" || entry.provider === rule.scopeId);
  return {
    open_keys: providers.reduce((sum, entry) => sum + entry.open, 0),
    providers_all_keys_open: providers.filter((entry) => entry.keys > 0 && entry.open === entry.keys).length,
  };
}

/** USD the owner's requests (as /api/logs filters them) cost in the `windowMs` before now: the forecast's rate. */
export function spendOf(sources: FigureSources): SpendIn {
  return async (owner, windowMs) => {
    const now = new Date(sources.now());
    return (await requestTotals(sources, { ...owner, start_time: new Date(now.getTime() - windowMs).toISOString(), end_time: now.toISOString() }, now)).cost;
  };
}

async function budgetFigures(sources: FigureSources, rule: RuleScope, names: ReadonlySet<FigureName>, now: Date) {
  const figures: Partial<Record<FigureName, number>> = {};
  if (!names.has("budget_used_fraction") && !names.has("projected_exhaustion_hours")) return figures;
  const budgets = budgetsInScope(sources.budgets(), rule);
  if (names.has("budget_used_fraction")) figures.budget_used_fraction = Math.max(0, ...budgets.map((budget) => (budget.max_limit === 0 ? 1 : budget.current_usage / budget.max_limit)));
  if (names.has("projected_exhaustion_hours")) {
    const hours = await Promise.all(budgets.map(async (budget) => (await forecastOf(budget, spendOf(sources), now)).hours_left));
    figures.projected_exhaustion_hours = Math.min(Number.MAX_SAFE_INTEGER, ...hours.map((left) => left ?? Number.MAX_SAFE_INTEGER));
  }
  return figures;
}

/**
 * The figures `names` asks for, over the rule's scope and the window ending now: only those, so a
 * rule on budgets costs no scan of the request log.
 */
export async function readFigures(sources: FigureSources, rule: RuleScope & { window: string }, names: ReadonlySet<FigureName>): Promise<Record<string, number>> {
  const now = new Date(sources.now());
  const query: LogFilterQuery = { ...scopeQuery(rule), period: rule.window };
  const figures: Record<string, number> = {};
  const wanted = (name: FigureName) => names.has(name);
  if (LOG_FIGURES.some(wanted)) {
    const totals = await requestTotals(sources, query, now);
    for (const name of LOG_FIGURES) if (wanted(name)) figures[name] = totals[name as keyof typeof totals];
  }
  if (wanted("p99_latency_ms")) figures.p99_latency_ms = await percentile(sources, query, now, requestLogs.latencyMs, 99);
  if (wanted("ttft_p95_ms")) figures.ttft_p95_ms = await percentile(sources, query, now, requestLogs.timeToFirstTokenMs, 95);
  if (wanted("guardrail_blocks")) figures.guardrail_blocks = await guardrailBlocks(sources, query, now);
  if (wanted("open_keys") || wanted("providers_all_keys_open")) Object.assign(figures, keyFigures(sources, rule));
  if (wanted("webhook_endpoints_disabled")) figures.webhook_endpoints_disabled = sources.disabledWebhookEndpoints();
  Object.assign(figures, await budgetFigures(sources, rule, names, now));
  for (const name of Object.keys(figures)) if (!wanted(name as FigureName)) delete figures[name];
  return figures;
}
