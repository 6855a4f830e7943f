import type { ModelFilter } from "./model-filter";

export interface SelectableKey {
  id: string;
  enabled: boolean;
  weight: number;
  models: ModelFilter;
  blacklist: ModelFilter;
}

/** An omitted or empty `models` list allows every model; the blacklist always wins. */
export const keyAllowsModel = (key: SelectableKey, model: string) =>
  key.enabled && (key.models.empty || key.models.matches(model)) && !key.blacklist.matches(model);

/**
 * Weighted random choice among enabled keys allowed for the model. Keys with weight 0 are
 * chosen only when no eligible key has a positive weight, and then uniformly.
 */
export function pickKey<K extends SelectableKey>(
  keys: readonly K[],
  model: string,
  excluded: ReadonlySet<string> = new Set(),
  random: () => number = Math.random,
): K | undefined {
  const eligible = keys.filter((key) => !excluded.has(key.id) && keyAllowsModel(key, model));
  const weighted = eligible.filter((key) => key.weight > 0);
  if (weighted.length === 0) return eligible[Math.floor(random() * eligible.length)];
  const total = weighted.reduce((sum, key) => sum + key.weight, 0);
  let point = random() * total;
  for (const key of weighted) {
    point -= key.weight;
    if (point < 0) return key;
  }
  return weighted[weighted.length - 1];
}
