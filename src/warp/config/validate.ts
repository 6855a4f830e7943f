import { badRequest } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import type { StoredWarpConfig, WarpModel } from "./schema";

const isBlank = (value: string) => value.trim() === "";

/** Spec 2.1's conditional rule: what an enabled configuration must name. */
const REQUIRED_WHEN_ENABLED = ["provider", "model", "embedding_provider", "embedding_model"] as const;

function requireComplete(config: StoredWarpConfig): void {
  for (const field of REQUIRED_WHEN_ENABLED) {
    if (isBlank(config[field])) throw badRequest(`${field} is required when enabled is true`, field);
  }
  if (config.embedding_dimension < 1) throw badRequest("embedding_dimension must be at least 1 when enabled is true", "embedding_dimension");
}

/**
 * A provider is registered when the deployment's provider registry holds it (GET /api/providers
 * lists it): a built-in provider configured there, or a custom one. A built-in name that was
 * never configured has no keys or base URL to call, so it does not count.
 */
function checkProvider(providers: ProviderStore, name: string, param: string): void {
  if (!isBlank(name) && !providers.get(name)) throw badRequest(`provider '${name}' is not registered in this deployment`, param, "caller_provider_not_registered");
}

/** A non-empty key reference must name one of that provider's configured keys. */
function checkKey(providers: ProviderStore, provider: string, keyId: string, param: string): void {
  if (keyId === "") return;
  if (!providers.get(provider)?.keys.some((key) => key.id === keyId)) {
    throw badRequest(`'${keyId}' is not a configured key of provider '${provider}'`, param, "caller_key_not_found");
  }
}

const pairOf = (model: Pick<WarpModel, "provider" | "model">) => JSON.stringify([model.provider, model.model]);

/** Spec 4.1 rule 5, whatever `enabled` says: complete, registered, and no (provider, model) twice. */
function checkAdditionalModels(providers: ProviderStore, config: StoredWarpConfig): void {
  const defaultPair = pairOf(config);
  const seen = new Map<string, number>();
  for (const [index, entry] of config.additional_models.entries()) {
    const param = `additional_models[${index}]`;
    if (isBlank(entry.provider)) throw badRequest(`${param}.provider must name a provider`, `${param}.provider`);
    if (isBlank(entry.model)) throw badRequest(`${param}.model must name a model`, `${param}.model`);
    checkProvider(providers, entry.provider, `${param}.provider`);
    checkKey(providers, entry.provider, entry.api_key_id ?? "", `${param}.api_key_id`);
    const pair = pairOf(entry);
    if (pair === defaultPair) throw badRequest(`${param} repeats the default model ${entry.provider}/${entry.model}`, param, "caller_duplicate_model");
    const earlier = seen.get(pair);
    if (earlier !== undefined) throw badRequest(`${param} repeats additional_models[${earlier}] (${entry.provider}/${entry.model})`, param, "caller_duplicate_model");
    seen.set(pair, index);
  }
}

/** Spec 4.1 rules 2 to 5 and the key references of 2.1, on a configuration already resolved. */
export function validateWarpConfig(config: StoredWarpConfig, providers: ProviderStore): void {
  if (config.enabled) requireComplete(config);
  checkProvider(providers, config.provider, "provider");
  checkKey(providers, config.provider, config.api_key_id, "api_key_id");
  checkProvider(providers, config.embedding_provider, "embedding_provider");
  checkKey(providers, config.embedding_provider, config.embedding_api_key_id, "embedding_api_key_id");
  checkAdditionalModels(providers, config);
}
