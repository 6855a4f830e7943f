import type { RoutingRuleRow } from "../../db/schema";
import type { Caller } from "../caller";
import type { RoutingScope } from "../schemas";
import type { RoutingRuleStore } from "../stores/routing-rules";
import type { RoutingFacts } from "./cel-conditions";

/** Where rules are looked for, most specific first: the key, its team, its customer, everyone. */
function scopeChain(caller: Caller | undefined): Array<[RoutingScope, string | null]> {
  const chain: Array<[RoutingScope, string | null]> = [];
  if (caller) chain.push(["virtual_key", caller.key.id]);
  if (caller?.team) chain.push(["team", caller.team.id]);
  if (caller?.customer) chain.push(["customer", caller.customer.id]);
  chain.push(["global", null]);
  return chain;
}

/**
 * The first enabled rule whose expression holds, in scope order, each scope in ascending
 * priority. The facts are gathered only when some rule applies: most requests meet none.
 */
export function firstMatchingRule(rules: RoutingRuleStore, caller: Caller | undefined, factsOf: () => RoutingFacts): RoutingRuleRow | undefined {
  if (!rules.anyEnabled) return undefined;
  const candidates = scopeChain(caller).flatMap(([scope, scopeId]) => rules.inScope(scope, scopeId));
  if (candidates.length === 0) return undefined;
  const facts = factsOf();
  return candidates.find((rule) => rule.matches(facts))?.row;
}
