import { badRequest } from "../http/errors";
import { explicitModels } from "../provider-registry/model-filter";
import type { ProviderStore } from "../provider-registry/store";
import { isBuiltInProvider } from "./providers/catalog";

export interface ModelRef {
  provider: string;
  model: string;
}

/** A provider serves a bare model name when one of its keys lists it by name or alias. */
function providerListing(store: ProviderStore, model: string): string | undefined {
  return store.list().find((provider) => provider.keys.some((key) => explicitModels(key.config.models).includes(model) || Object.hasOwn(key.config.aliases ?? {}, model)))?.name;
}

/**
 * `provider/model` names its provider; anything else (including `org/model` where `org` is no
 * provider) goes to the mount's own provider, or resolves through the configured providers'
 * keys, or is a 400 naming `param`.
 */
export function resolveModelRef(raw: string, store: ProviderStore, param: string, mountProvider?: string): ModelRef {
  const slash = raw.indexOf("/");
  if (slash > 0) {
    const provider = raw.slice(0, slash);
    const model = raw.slice(slash + 1);
    if (store.get(provider)) {
      if (!model) throw badRequest(`${param} '${raw}' names no model after the provider`, param, "caller_invalid_model");
      return { provider, model };
    }
    if (isBuiltInProvider(provider)) throw badRequest(`provider '${provider}' in ${param} is not configured`, param, "caller_provider_not_configured");
  }
  if (mountProvider && store.get(mountProvider)) return { provider: mountProvider, model: raw };
  const provider = providerListing(store, raw);
  if (provider) return { provider, model: raw };
  throw badRequest(`${param} '${raw}' names no configured provider; write it as provider/model`, param, "caller_invalid_model");
}
