import type { RuleCreate } from "./schemas";

type BuiltinRule = Omit<RuleCreate, "channel_ids" | "enabled">;

const budgetUsed = (percent: number, severity: RuleCreate["severity"]): BuiltinRule => ({
  name: `Budget ${percent} % used`,
  condition: `budget_used_fraction >= ${percent / 100}`,
  window: "1h",
  interval_seconds: 60,
  for_seconds: 0,
  cooldown_seconds: 3_600,
  severity,
  scope: "global",
});

/** Rules ready to enable (POST /api/alerts/builtins/{name}), each a plain rule once created. */
export const BUILTIN_RULES: Record<string, { description: string; rule: BuiltinRule }> = {
  budget_50: { description: "A budget (of the scope, or any) is half used.", rule: budgetUsed(50, "info") },
  budget_80: { description: "A budget is 80 % used.", rule: budgetUsed(80, "warning") },
  budget_100: { description: "A budget is used up: its requests are refused until it resets.", rule: budgetUsed(100, "critical") },
  error_rate_5: {
    description: "More than 5 % of requests failed, for 5 minutes.",
    rule: { name: "Error rate above 5 %", condition: "requests > 0 && error_rate > 0.05", window: "5m", interval_seconds: 60, for_seconds: 300, cooldown_seconds: 600, severity: "critical", scope: "global" },
  },
  provider_keys_open: {
    description: "Every key of a provider has its circuit breaker open: nothing is sent to it.",
    rule: { name: "A provider's keys all open", condition: "providers_all_keys_open > 0", window: "5m", interval_seconds: 30, for_seconds: 0, cooldown_seconds: 300, severity: "critical", scope: "global" },
  },
};
