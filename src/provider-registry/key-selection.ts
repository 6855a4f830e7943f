import type { ModelFilter } from "./model-filter";

export interface SelectableKey {
  id: string;
  enabled: boolean;
  weight: number;
  models: ModelFilter;
  blacklist: ModelFilter;
  /** User-facing model name to the provider's identifier. */
  aliases: Readonly<Record<string, string>>;
  /** Marked for batch and file calls (`use_for_batch_api`). */
  useForBatchApi?: boolean;
}

/** What a call needs from a key: to allow its model, or for batch and file calls, to be marked for the batch API. */
export interface KeyNeed {
  model: string;
  batchApi?: boolean;
  /** Calls that name no model (a stored response's) take any enabled key. */
  anyModel?: boolean;
}

/**
 * An omitted or empty `models` list allows every model, and a key serves every name its aliases
 * declare; the blacklist always wins, whether it names the user-facing model or its alias target.
 */
export function keyAllowsModel(key: SelectableKey, model: string): boolean {
  if (!key.enabled) return false;
  const aliased = Object.hasOwn(key.aliases, model);
  const upstreamModel = aliased ? key.aliases[model]! : model;
  if (key.blacklist.matches(model) || key.blacklist.matches(upstreamModel)) return false;
  return aliased || key.models.empty || key.models.matches(model);
}

/** Batch and file calls take the enabled keys marked `use_for_batch_api`, whatever models they list. */
export function keyMeets(key: SelectableKey, need: KeyNeed): boolean {
  if (need.batchApi) return key.enabled && key.useForBatchApi === true;
  return need.anyModel ? key.enabled : keyAllowsModel(key, need.model);
}

/** The keys that meet the need and are not excluded, in their configured order. */
export function eligibleKeys<K extends SelectableKey>(keys: readonly K[], need: string | KeyNeed, excluded: ReadonlySet<string> = new Set()): K[] {
  const wanted = typeof need === "string" ? { model: need } : need;
  return keys.filter((key) => !excluded.has(key.id) && keyMeets(key, wanted));
}

/**
 * Weighted random choice among `eligible`. Keys with weight 0 are chosen only when no eligible
 * key has a positive weight, and then uniformly.
 */
export function pickWeighted<K extends SelectableKey>(eligible: readonly K[], random: () => number = Math.random): K | undefined {
  const weighted = eligible.filter((key) => key.weight > 0);
  if (weighted.length === 0) return eligible[Math.floor(random() * eligible.length)];
  // Drawn in shares of the largest weight: weights near Number.MAX_VALUE would sum to Infinity.
  const largest = weighted.reduce((max, key) => Math.max(max, key.weight), 0);
  const total = weighted.reduce((sum, key) => sum + key.weight / largest, 0);
  let point = random() * total;
  for (const key of weighted) {
    point -= key.weight / largest;
    if (point < 0) return key;
  }
  return weighted[weighted.length - 1];
}

/** Weighted random choice among the keys that meet the need (a bare model name: allow that model). */
export function pickKey<K extends SelectableKey>(
  keys: readonly K[],
  need: string | KeyNeed,
  excluded: ReadonlySet<string> = new Set(),
  random: () => number = Math.random,
): K | undefined {
  return pickWeighted(eligibleKeys(keys, need, excluded), random);
}
