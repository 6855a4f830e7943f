import { explicitModels } from "./model-filter";
import type { RuntimeKey, RuntimeProvider } from "./runtime";
import type { ProviderStore } from "./store";

export interface ListedModel {
  provider: RuntimeProvider;
  model: string;
  /** `provider/model`. */
  id: string;
  /** The enabled keys that name or reach it. */
  keyIds: string[];
}

/** What one key serves: the names its lists spell out, its aliases, and what its last health check reached. */
function modelsOfKey(key: RuntimeKey): string[] {
  const named = [...explicitModels(key.config.models), ...Object.keys(key.config.aliases ?? {})];
  const reached = key.reachedModels.filter((model) => key.models.empty || key.models.matches(model));
  return [...named, ...reached.filter((model) => !key.blacklist.matches(model))];
}

/**
 * Every model the enabled keys name (by name or alias) or reached at their last health check,
 * once per provider, for the model listings of every mount and GET /api/models.
 */
export function configuredModels(store: ProviderStore): ListedModel[] {
  return store.list().flatMap((provider) => {
    const byModel = new Map<string, string[]>();
    for (const key of provider.keys.filter((candidate) => candidate.enabled)) {
      for (const model of modelsOfKey(key)) byModel.set(model, [...new Set([...(byModel.get(model) ?? []), key.id])]);
    }
    return [...byModel].map(([model, keyIds]) => ({ provider, model, id: `${provider.name}/${model}`, keyIds }));
  });
}
