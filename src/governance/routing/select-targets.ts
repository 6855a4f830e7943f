import type { RoutingRuleRow } from "../../db/schema";
import { GatewayError } from "../../http/errors";
import { type ModelRef, resolveModelRef } from "../../inference/model-ref";
import { keyAllowsModel } from "../../provider-registry/key-selection";
import type { ProviderStore } from "../../provider-registry/store";
import { configAllowsModel } from "../access-policy";
import type { Caller } from "../caller";
import type { ProviderConfig } from "../../db/schema/types";
import type { RoutingRuleStore } from "../stores/routing-rules";
import type { RoutingFacts } from "./cel-conditions";
import { firstMatchingRule } from "./first-matching-rule";
import { chooseWeighted } from "./weighted-choice";

export interface SelectionInput {
  /** The model and fallbacks as the client wrote them. */
  model: string;
  fallbacks: readonly string[];
  mountProvider?: string;
  caller?: Caller;
  /** What a rule can read about the request named `target`; asked for only when a rule applies. */
  facts: (target: ModelRef) => RoutingFacts;
}

export interface Selection {
  targets: ModelRef[];
  rule?: RoutingRuleRow;
  engine?: "routing-rule" | "governance";
  /** The key a rule's target pins, by provider. */
  pinnedKeys?: Record<string, string[]>;
}

/** Resolves as the pipeline would; a model that names nothing resolvable is kept as the error. */
function tryResolve(raw: string, providers: ProviderStore, mountProvider?: string): ModelRef | GatewayError {
  try {
    return resolveModelRef(raw, providers, "model", mountProvider);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

/** Whether the client chose the provider: `provider/model`, or a provider mount. */
function namesProvider(raw: string, providers: ProviderStore, mountProvider?: string): boolean {
  const slash = raw.indexOf("/");
  return (slash > 0 && providers.get(raw.slice(0, slash)) !== undefined) || (mountProvider !== undefined && providers.get(mountProvider) !== undefined);
}

function fromRule(rule: RoutingRuleRow, incoming: ModelRef, clientFallbacks: ModelRef[], providers: ProviderStore, mountProvider?: string): Selection {
  const chosen = chooseWeighted(rule.targets, (target) => target.weight ?? 1)!;
  const model = chosen.model || incoming.model;
  const provider = chosen.provider || incoming.provider;
  const primary = provider ? { provider, model } : resolveModelRef(model, providers, "model", mountProvider);
  const fallbacks = rule.fallbacks.length ? rule.fallbacks.map((fallback, index) => resolveModelRef(fallback, providers, `fallbacks[${index}]`)) : clientFallbacks;
  const pinnedKeys = chosen.key_id ? { [primary.provider]: [chosen.key_id] } : undefined;
  return { targets: [primary, ...fallbacks], rule, engine: "routing-rule", pinnedKeys };
}

function servesModel(config: ProviderConfig, model: string, providers: ProviderStore): boolean {
  const provider = providers.get(config.provider);
  if (!provider || !configAllowsModel(config, model)) return false;
  if (provider.keys.length === 0) return provider.adapter.keyOptional === true;
  const allowedKeys = config.key_ids ?? [];
  return provider.keys.some((key) => (allowedKeys.length === 0 || allowedKeys.includes(key.id)) && keyAllowsModel(key, model));
}

/** A bare model on a key with provider configs: one provider by weight, the others as fallbacks by weight. */
function byProviderWeights(caller: Caller, model: string, providers: ProviderStore): ModelRef[] | undefined {
  const candidates = caller.key.providerConfigs.filter((config) => servesModel(config, model, providers));
  const first = chooseWeighted(candidates, (config) => config.weight ?? 1);
  if (!first) return undefined;
  const others = candidates.filter((config) => config !== first).sort((a, b) => (b.weight ?? 1) - (a.weight ?? 1));
  return [first, ...others].map((config) => ({ provider: config.provider, model }));
}

/**
 * The targets of a request, in this order of precedence: the first matching routing rule;
 * for a model that names no provider, the virtual key's provider weights; else the model as
 * the client named it.
 */
export function selectTargets(input: SelectionInput, providers: ProviderStore, rules: RoutingRuleStore): Selection {
  const { model: raw, mountProvider, caller } = input;
  const clientFallbacks = input.fallbacks.map((fallback, index) => resolveModelRef(fallback, providers, `fallbacks[${index}]`, mountProvider));
  const resolved = tryResolve(raw, providers, mountProvider);
  const named = namesProvider(raw, providers, mountProvider);
  const incoming = resolved instanceof GatewayError ? { provider: "", model: raw } : resolved;
  const rule = rules.anyEnabled ? firstMatchingRule(rules, caller, () => input.facts(incoming)) : undefined;
  if (rule) return fromRule(rule, incoming, clientFallbacks, providers, mountProvider);
  const weighted = caller && !named ? byProviderWeights(caller, incoming.model, providers) : undefined;
  if (weighted) return { targets: [weighted[0]!, ...(clientFallbacks.length ? clientFallbacks : weighted.slice(1))], engine: "governance" };
  if (resolved instanceof GatewayError) throw resolved;
  return { targets: [resolved, ...clientFallbacks] };
}
