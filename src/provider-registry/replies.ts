import { Type as t } from "@sinclair/typebox";
import { CustomProviderConfig, NetworkConfig, ProviderKeyInput } from "../config/sections/providers";
import { Timestamp } from "../http/replies";

/** What the management API answers about providers and their keys. */

const breakerFields = {
  state: t.String({ description: "The circuit breaker: `closed`, `half_open` or `open`." }),
  reopens_at: t.Optional(Timestamp),
  recent_failures: t.Integer(),
};

export const KeyHealth = t.Object(
  {
    ...breakerFields,
    latency_ms: t.Optional(t.Number({ description: "Recent time to first byte." })),
    in_flight: t.Integer(),
    models: t.Optional(t.Array(t.Object({ model: t.String(), ...breakerFields }), { description: "The key's breakers for single models that are not closed (404s and malformed replies open only these)." })),
  },
  { title: "ProviderKeyHealth", description: "The key's breaker and load as this node sees them." },
);

export const ProviderKey = t.Object(
  {
    ...ProviderKeyInput.properties,
    id: t.String(),
    name: t.String(),
    enabled: t.Boolean(),
    weight: t.Number(),
    config_hash: t.String({ description: "Changes when the key's configuration does." }),
    status: t.String({ description: "What listing the provider's models with this key found: `success` or `failed`." }),
    description: t.String({ description: "Why the last check failed, when it did." }),
    health: t.Optional(KeyHealth),
  },
  { title: "ProviderKey", additionalProperties: true, description: "A provider key as written, its secrets (`value`, credentials) redacted to `****` and their last four characters." },
);

export const Provider = t.Object({
  provider: t.String(),
  keys: t.Array(ProviderKey),
  key_optional: t.Boolean({ description: "True when the provider serves without a key (a local server, a keyless custom provider)." }),
  health: t.Optional(KeyHealth),
  panic: t.Optional(t.Object({ requests: t.Integer(), last_at: t.Optional(Timestamp) }, { description: "Requests this node sent to open keys because too many were open (the panic threshold), and when the last was." })),
  network_config: NetworkConfig,
  custom_provider_config: t.Optional(CustomProviderConfig),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: "Provider" });

export const ProviderList = t.Object({ providers: t.Array(Provider) }, { title: "ProviderList" });
export const ProviderKeyList = t.Object({ keys: t.Array(ProviderKey) }, { title: "ProviderKeyList" });
export const CheckedKey = t.Object({ ...ProviderKey.properties, reachable_models: t.Array(t.String(), { description: "The models listing found with the key." }) }, { title: "CheckedProviderKey", additionalProperties: true });
export const ModelList = t.Object({
  models: t.Array(t.Object({ id: t.String({ description: "`provider/model`" }), provider: t.String(), model: t.String(), key_ids: t.Array(t.String()) })),
  count: t.Integer(),
}, { title: "ModelList" });
