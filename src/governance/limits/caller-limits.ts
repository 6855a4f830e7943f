import type { CustomerRow, TeamRow, VirtualKeyRow } from "../../db/schema";
import type { Caller } from "../caller";
import { type AppliedLimit, budgetLimits, type LimitOwner, rateLimits } from "./applied-limits";

/**
 * Limits derived from a row, kept as long as the row: stores replace a row object whenever it
 * changes, so a cached entry can never outlive the settings it was made from.
 */
const derived = new WeakMap<object, Map<string, AppliedLimit[]>>();

function cachedFor(row: object, part: string, derive: () => AppliedLimit[]): AppliedLimit[] {
  const parts = derived.get(row) ?? new Map<string, AppliedLimit[]>();
  derived.set(row, parts);
  const cached = parts.get(part);
  if (cached) return cached;
  const limits = derive();
  parts.set(part, limits);
  return limits;
}

/** The budgets and rate limits a key, team or customer sets for itself. */
export function ownLimits(level: LimitOwner["level"], row: VirtualKeyRow | TeamRow | CustomerRow): AppliedLimit[] {
  return cachedFor(row, "own", () => {
    const owner = { level, id: row.id, name: row.name };
    return [...budgetLimits(owner, row.budgets), ...rateLimits(owner, row.rateLimit)];
  });
}

/** The limits of the key itself, its team and its customer: every one of them is checked. */
export function organizationLimits({ key, team, customer }: Caller): AppliedLimit[] {
  return [...ownLimits("virtual_key", key), ...(team ? ownLimits("team", team) : []), ...(customer ? ownLimits("customer", customer) : [])];
}

/** The limits the key sets for one provider in its `provider_configs`. */
export function providerConfigLimits({ key }: Caller, provider: string): AppliedLimit[] {
  return cachedFor(key, `provider:${provider}`, () => {
    const config = key.providerConfigs.find((candidate) => candidate.provider === provider);
    if (!config) return [];
    const owner = { level: "provider_config" as const, id: `${key.id}/${provider}`, name: `${key.name}/${provider}` };
    return [...budgetLimits(owner, config.budgets ?? []), ...rateLimits(owner, config.rate_limit)];
  });
}
