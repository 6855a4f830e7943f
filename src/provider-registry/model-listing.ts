import { explicitModels } from "./model-filter";
import type { RuntimeProvider } from "./runtime";
import type { ProviderStore } from "./store";

/** Every model the configured keys name (by name or alias), once per provider, for model listings. */
export function configuredModels(store: ProviderStore): Array<{ provider: RuntimeProvider; model: string; id: string }> {
  return store.list().flatMap((provider) => {
    const names = new Set(provider.keys.flatMap((key) => [...explicitModels(key.config.models), ...Object.keys(key.config.aliases ?? {})]));
    return [...names].map((model) => ({ provider, model, id: `${provider.name}/${model}` }));
  });
}
