import { Elysia } from "elysia";
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
    })
    .get("/rate-limits", () => {
      const rateLimits = rateLimitUsage(everyLimit(organization, keys), counters);
      return { rate_limits: rateLimits, count: rateLimits.length };
    });
}
