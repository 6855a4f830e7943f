import { Elysia } from "elysia";
import { replies } from "../../http/replies";
import { BudgetUsageList, RateLimitUsageList } from "../replies";
import { budgetUsage, everyLimit, rateLimitUsage } from "../limits/usage-report";
import type { LimitCounters } from "../limits/limit-counters";
import type { Organization } from "../stores/organization";
import type { VirtualKeyStore } from "../stores/virtual-keys";

/** GET /api/governance/budgets and /rate-limits: every limit with its current window's usage. */
export function usageRoutes(organization: Organization, keys: VirtualKeyStore, counters: LimitCounters) {
  return new Elysia({ name: "governance-usage" })
    .get("/budgets", () => {
      const budgets = budgetUsage(everyLimit(organization, keys), counters);
      return { budgets, count: budgets.length };
    }, replies({ 200: BudgetUsageList }, { summary: "List budgets with their usage", description: "Every budget of every customer, team, virtual key and provider config, with what its current window used." }))
    .get("/rate-limits", () => {
      const rateLimits = rateLimitUsage(everyLimit(organization, keys), counters);
      return { rate_limits: rateLimits, count: rateLimits.length };
    }, replies({ 200: RateLimitUsageList }, { summary: "List rate limits with their usage", description: "One row per owner with a rate limit, its token and request windows side by side." }));
}
