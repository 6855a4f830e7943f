import { badRequest, GatewayError } from "../http/errors";
import { keyAllowsModel } from "../provider-registry/key-selection";
import { explicitModels } from "../provider-registry/model-filter";
import type { ProviderStore } from "../provider-registry/store";
import { isBuiltInProvider } from "./providers/catalog";

export interface ModelRef {
  provider: string;
  model: string;
}

/** A provider serves a bare model name when one of its keys lists it by name or alias. */
export function providerListing(store: ProviderStore, model: string): string | undefined {
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

/** A model named in a path, where SDKs escape its slash (`openai%2Fgpt-4o`). */
export function modelInPath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`'${segment}' is not a valid escaped model name`, "model", "caller_invalid_model");
  }
}

/** Where `raw` goes, or undefined where resolveModelRef would answer a 400. */
export function resolvedModelRef(raw: string, store: ProviderStore, mountProvider?: string): ModelRef | undefined {
  try {
    return resolveModelRef(raw, store, "model", mountProvider);
  } catch (error) {
    if (error instanceof GatewayError) return undefined;
    throw error;
  }
}

/** A model some provider key serves, with the keys that serve it (none where the provider needs no key). */
export interface ServedModel extends ModelRef {
  keyIds: string[];
}

/** Where `raw` goes when an enabled key there serves it (or the provider needs none), as `GET /models/{model}` answers; else undefined. */
export function servedModel(raw: string, store: ProviderStore, mountProvider?: string): ServedModel | undefined {
  const ref = resolvedModelRef(raw, store, mountProvider);
  if (!ref) return undefined;
  const provider = store.get(ref.provider)!;
  if (provider.keys.length === 0 && provider.adapter.keyOptional) return { ...ref, keyIds: [] };
  const keyIds = provider.keys.filter((key) => keyAllowsModel(key, ref.model)).map((key) => key.id);
  return keyIds.length ? { ...ref, keyIds } : undefined;
}
