import { randomUUID } from "node:crypto";
import { Value } from "@sinclair/typebox/value";
import { badRequest } from "../http/errors";
import { validateOAuthKeyConfig } from "../upstream/oauth-config";
import type { ProviderAdapter, ProviderFamilies } from "../upstream/adapter";
import type { SelectableKey } from "./key-selection";
import { redactKeySecrets } from "./key-secrets";
import { compileModelFilter } from "./model-filter";
import { NetworkConfig, ProviderKeyInput } from "../config/sections/providers";
import type { EnvReader } from "../config/env-reference";
import type { OutboundPolicy } from "../outbound/host-check";

export interface RuntimeKey extends SelectableKey {
  name: string;
  config: ProviderKeyInput;
  configHash: string;
  status: string;
  description: string;
  /** The models its last health check listed, for its current configuration. */
  reachedModels: readonly string[];
}

export interface RuntimeProvider {
  name: string;
  adapter: ProviderAdapter;
  baseUrl: string | undefined;
  network: NetworkConfig;
  customProviderConfig: { base_provider_type: string } | null;
  keys: RuntimeKey[];
  /** Reads the keys' `env.NAME` values, under the configuration's allow-list. */
  readEnv: EnvReader;
  /** The addresses its calls may reach (its base URL, its keys' endpoints and token URLs). */
  outbound: OutboundPolicy;
  createdAt: Date;
  updatedAt: Date;
}

export const NETWORK_DEFAULTS = {
  default_request_timeout_in_seconds: 30,
  max_retries: 0,
  retry_backoff_initial: 500,
  retry_backoff_max: 5000,
} as const satisfies NetworkConfig;

type EffectiveNetwork = NetworkConfig & Required<Pick<NetworkConfig, keyof typeof NETWORK_DEFAULTS | "stream_idle_timeout_in_seconds">>;

// Read on every request; a provider's network settings are replaced, never changed in place.
const effective = new WeakMap<NetworkConfig, EffectiveNetwork>();

/** A provider's network settings over the defaults; a timeout of 0 selects the default (for a stream's silence: the request timeout). */
export function effectiveNetwork(network: NetworkConfig): EffectiveNetwork {
  let settings = effective.get(network);
  if (!settings) {
    const timeout = network.default_request_timeout_in_seconds || NETWORK_DEFAULTS.default_request_timeout_in_seconds;
    const streamIdle = network.stream_idle_timeout_in_seconds || timeout;
    effective.set(network, (settings = { ...NETWORK_DEFAULTS, ...network, default_request_timeout_in_seconds: timeout, stream_idle_timeout_in_seconds: streamIdle }));
  }
  return settings;
}

/** Families whose calls are signed or authorized with what the key holds (credentials, a service account): no call without one. */
const SIGNED_FAMILIES: ReadonlySet<string> = new Set(["bedrock", "vertex"]);

/**
 * A custom provider is some other server speaking the family's format (often a gateway or a
 * proxy that takes the canonical extras): it gets translated bodies whole. Registered without
 * keys, it is a server without auth (LM Studio, llama.cpp, a vLLM without a key), which serves
 * every model and gets no auth header, as the built-in ollama does.
 */
function customAdapter(family: string, adapter: ProviderAdapter): ProviderAdapter {
  const keyOptional = adapter.keyOptional || !SIGNED_FAMILIES.has(family);
  if (!adapter.translatedBody && keyOptional === adapter.keyOptional) return adapter;
  return { ...adapter, translatedBody: undefined, keyOptional };
}

/** Resolves which built-in family a provider belongs to and validates that it can be reached. */
export function resolveFamily(families: ProviderFamilies, name: string, custom: { base_provider_type: string } | null | undefined, network: NetworkConfig) {
  if (custom && Object.hasOwn(families, name)) throw badRequest(`'${name}' is a built-in provider and cannot carry custom_provider_config`, "custom_provider_config");
  const familyName = custom ? custom.base_provider_type : name;
  const family = families[familyName];
  if (!family) {
    throw custom
      ? badRequest(`custom_provider_config.base_provider_type '${familyName}' is not a known provider type`, "custom_provider_config.base_provider_type")
      : badRequest(`'${name}' is not a built-in provider; add custom_provider_config to register a custom one`, "provider");
  }
  const baseUrl = network.base_url ?? (custom ? undefined : family.defaultBaseUrl);
  if (custom && !baseUrl && !family.adapter.keyOptional) throw badRequest("a custom provider needs network_config.base_url", "network_config.base_url");
  if (!custom && family.requiresBaseUrl && !baseUrl) throw badRequest(`${name} is served at an address of your own: set network_config.base_url`, "network_config.base_url");
  return { adapter: custom ? customAdapter(familyName, family.adapter) : family.adapter, baseUrl: baseUrl ?? family.defaultBaseUrl };
}


/**
 * Only the schema's fields are stored: config.json seeds reach the store without the HTTP layer's
 * cleaning, and a field such as `config_hash` must never be taken from the input.
 */
const onlyKnownKeyFields = (input: ProviderKeyInput) => Value.Clean(ProviderKeyInput, structuredClone(input)) as ProviderKeyInput;
export const onlyKnownNetworkFields = (input: NetworkConfig) => Value.Clean(NetworkConfig, structuredClone(input)) as NetworkConfig;

/** Fills a key's defaults and validates its model lists; `param` prefixes the field names in errors. */
export function normalizeKey(input: ProviderKeyInput, provider: string, param: string): Required<Pick<ProviderKeyInput, "id" | "name" | "enabled" | "weight">> & ProviderKeyInput {
  const key = onlyKnownKeyFields(input);
  const id = key.id ?? randomUUID();
  compileModelFilter(key.models, `${param}models`);
  compileModelFilter(key.blacklisted_models, `${param}blacklisted_models`);
  if (key.oauth_key_config) validateOAuthKeyConfig(key.oauth_key_config, Boolean(key.value), param);
  return { ...key, id, name: key.name ?? `${provider}-${id.slice(0, 8)}`, enabled: key.enabled ?? true, weight: key.weight ?? 1 };
}

export function toRuntimeKey(config: ProviderKeyInput & { id: string }, meta: { configHash: string; status: string; description: string; reachedModels: readonly string[] }): RuntimeKey {
  return {
    id: config.id,
    name: config.name ?? config.id,
    enabled: config.enabled ?? true,
    weight: config.weight ?? 1,
    models: compileModelFilter(config.models, "models"),
    blacklist: compileModelFilter(config.blacklisted_models, "blacklisted_models"),
    aliases: config.aliases ?? {},
    useForBatchApi: config.use_for_batch_api === true,
    config,
    ...meta,
  };
}

/** A breaker as responses show it. */
interface BreakerView {
  state: string;
  reopens_at?: string;
  recent_failures: number;
}

/** A key's circuit breaker and what this node measured of it, as responses show them; with its breakers for single models that are not closed. */
export interface KeyHealthView extends BreakerView {
  latency_ms?: number;
  in_flight: number;
  models?: Array<BreakerView & { model: string }>;
}

/** Requests a provider in panic sent to keys whose breakers were open, on this node. */
export interface PanicView {
  requests: number;
  last_at?: string;
}

/** Where a view finds a key's health (undefined key: a keyless provider's own) and the provider's panic. */
export interface HealthViews {
  view(provider: string, keyId: string | undefined): KeyHealthView;
  panicView(provider: string): PanicView;
}

/** A key as every response shows it: secrets redacted; with its breaker when `health` is given. */
export const keyView = (key: RuntimeKey, health?: KeyHealthView) => ({
  ...redactKeySecrets(key.config),
  id: key.id,
  name: key.name,
  enabled: key.enabled,
  weight: key.weight,
  config_hash: key.configHash,
  status: key.status,
  description: key.description,
  health,
});

export const providerView = (provider: RuntimeProvider, health?: HealthViews) => ({
  provider: provider.name,
  keys: provider.keys.map((key) => keyView(key, health?.view(provider.name, key.id))),
  /** Whether requests reach it with no key at all (no auth header sent): a local server, say. */
  key_optional: provider.adapter.keyOptional,
  /** A keyless provider's breaker is its own. */
  health: provider.keys.length === 0 ? health?.view(provider.name, undefined) : undefined,
  panic: health?.panicView(provider.name),
  network_config: provider.network,
  custom_provider_config: provider.customProviderConfig ?? undefined,
  created_at: provider.createdAt.toISOString(),
  updated_at: provider.updatedAt.toISOString(),
});
