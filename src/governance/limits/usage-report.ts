import type { Caller } from "../caller";
import type { RateLimitUsage } from "../replies";
import type { Organization } from "../stores/organization";
import type { VirtualKeyStore } from "../stores/virtual-keys";
import type { AppliedLimit, LimitOwner } from "./applied-limits";
import { organizationLimits, ownLimits, providerConfigLimits } from "./caller-limits";
import type { LimitCounters } from "./limit-counters";

const ownerFields = (owner: LimitOwner) => ({ level: owner.level, owner_id: owner.id, owner_name: owner.name });
const iso = (ms: number) => new Date(ms).toISOString();

/** One row per budget: its limit, what the current window used, what is left, when it resets. */
export function budgetUsage(limits: readonly AppliedLimit[], counters: LimitCounters) {
  return limits
    .filter((limit) => limit.kind === "budget")
    .map((limit) => {
      const reading = counters.read(limit);
      return {
        ...ownerFields(limit.owner),
        max_limit: limit.max,
        reset_duration: limit.duration,
        calendar_aligned: limit.calendarAligned,
        current_usage: reading.used,
        remaining: Math.max(0, limit.max - reading.used),
        last_reset: iso(reading.windowStart),
        resets_at: iso(reading.resetsAt),
      };
    });
}

/** One row per owner with a rate limit, token and request halves side by side. */
export function rateLimitUsage(limits: readonly AppliedLimit[], counters: LimitCounters) {
  const rows = new Map<string, RateLimitUsage>();
  for (const limit of limits) {
    if (limit.kind === "budget") continue;
    const key = `${limit.owner.level}:${limit.owner.id}`;
    const row: RateLimitUsage = rows.get(key) ?? ownerFields(limit.owner);
    const reading = counters.read(limit);
    const half = limit.kind === "tokens" ? "token" : "request";
    Object.assign(row, {
      [`${half}_max_limit`]: limit.max,
      [`${half}_reset_duration`]: limit.duration,
      [`${half}_current_usage`]: reading.used,
      [`${half}_remaining`]: Math.max(0, limit.max - reading.used),
      [`${half}_resets_at`]: iso(reading.resetsAt),
    });
    rows.set(key, row);
  }
  return [...rows.values()];
}

/** Everything a caller is held to: its own, its team's, its customer's, and each provider config's. */
export function limitsOfCaller(caller: Caller): AppliedLimit[] {
  return [...organizationLimits(caller), ...caller.key.providerConfigs.flatMap((config) => providerConfigLimits(caller, config.provider))];
}

/** Every limit the deployment has: customers, teams, virtual keys and their provider configs. */
export function everyLimit(organization: Organization, virtualKeys: VirtualKeyStore): AppliedLimit[] {
  return [
    ...organization.customers.all().flatMap((row) => ownLimits("customer", row)),
    ...organization.teams.all().flatMap((row) => ownLimits("team", row)),
    ...virtualKeys.keys.all().flatMap((key) => limitsOfCaller({ key })),
  ];
}
