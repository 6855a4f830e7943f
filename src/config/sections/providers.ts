import { type Static, Type as t } from "@sinclair/typebox";

const Str = t.String();
const OptStr = t.Optional(Str);
const StrList = t.Array(Str);

export const AzureKeyConfig = t.Object({
  endpoint: OptStr,
  api_version: OptStr,
  client_id: OptStr,
  client_secret: OptStr,
  tenant_id: OptStr,
  scopes: t.Optional(StrList),
  /** Model name to the Azure deployment that serves it; a model not listed is its own deployment name. */
  deployments: t.Optional(t.Record(Str, Str)),
});

export const VertexKeyConfig = t.Object({
  project_id: OptStr,
  project_number: OptStr,
  region: OptStr,
  auth_credentials: OptStr,
  force_single_region: t.Optional(t.Boolean()),
  aws_workload_identity: t.Optional(
    t.Object({
      audience: OptStr,
      service_account_email: OptStr,
      aws_region: OptStr,
      aws_role_arn: OptStr,
      token_lifetime_seconds: t.Optional(t.Integer({ minimum: 0 })),
    }),
  ),
});

export const BedrockKeyConfig = t.Object({
  access_key: OptStr,
  secret_key: OptStr,
  session_token: OptStr,
  region: OptStr,
  arn: OptStr,
  batch_s3_config: t.Optional(
    t.Object({
      buckets: t.Array(t.Object({ bucket_name: Str, prefix: OptStr, is_default: t.Optional(t.Boolean()) })),
    }),
  ),
});

export const OAuthKeyConfig = t.Object({
  grant_type: OptStr,
  token_url: OptStr,
  client_id: OptStr,
  client_secret: OptStr,
  private_key: OptStr,
  audience: OptStr,
  issuer: OptStr,
  subject: OptStr,
  key_id: OptStr,
  signing_algorithm: OptStr,
  auth_style: OptStr,
  scopes: t.Optional(StrList),
  extra_params: t.Optional(t.Record(Str, t.Unknown())),
  assertion_lifetime_seconds: t.Optional(t.Integer({ minimum: 0 })),
});
export type OAuthKeyConfig = Static<typeof OAuthKeyConfig>;

/**
 * Response-only fields (`config_hash`, `status`, ...) may come back when a client writes what it
 * read, so bodies accept unknown fields; the store keeps only the ones declared here.
 */
const ACCEPTS_READ_FIELDS = { additionalProperties: true } as const;

/** Every writable field of a provider key (spec 2.7). */
export const ProviderKeyInput = t.Object({
  id: t.Optional(t.String({ minLength: 1, maxLength: 128, description: "The key's id (generated when absent); `x-gw-api-key-id` pins a request to it." })),
  name: OptStr,
  value: t.Optional(t.String({ description: "The provider's API key; `env.NAME` reads it from the environment when used. Encrypted at rest, answered redacted." })),
  models: t.Optional(t.Array(Str, { description: "The models this key serves: names, `*` patterns or `regex:` (RE2); empty or absent means every model." })),
  blacklisted_models: t.Optional(t.Array(Str, { description: "Models this key never serves, in the same forms." })),
  weight: t.Optional(t.Number({ minimum: 0, description: "Share of traffic among the keys that serve a model (default 1)." })),
  aliases: t.Optional(t.Record(Str, Str, { description: "Model name a client sends to the name the provider knows." })),
  azure_key_config: t.Optional(AzureKeyConfig),
  vertex_key_config: t.Optional(VertexKeyConfig),
  bedrock_key_config: t.Optional(BedrockKeyConfig),
  vllm_key_config: t.Optional(t.Object({ url: OptStr, model_name: OptStr })),
  ollama_key_config: t.Optional(t.Object({ url: OptStr })),
  sgl_key_config: t.Optional(t.Object({ url: OptStr })),
  cloudflare_key_config: t.Optional(t.Object({ account_id: OptStr })),
  replicate_key_config: t.Optional(t.Object({ use_deployments_endpoint: t.Optional(t.Boolean()) })),
  watsonx_key_config: t.Optional(
    t.Object({
      project_id: t.Optional(t.String({ description: "The watsonx.ai project calls run in (this or `space_id`)." })),
      space_id: t.Optional(t.String({ description: "The deployment space calls run in, instead of a project." })),
      iam_url: t.Optional(t.String({ format: "uri", description: "Where the key's IBM Cloud API key is exchanged for a token (default IBM Cloud's IAM)." })),
    }),
  ),
  oauth_key_config: t.Optional(OAuthKeyConfig),
  enabled: t.Optional(t.Boolean({ description: "A disabled key serves nothing (default true)." })),
  use_for_batch_api: t.Optional(t.Boolean()),
}, ACCEPTS_READ_FIELDS);
export type ProviderKeyInput = Static<typeof ProviderKeyInput>;

/** How a provider's keys are watched and chosen: circuit breakers per key and the choice among keys. */
export const HealthConfig = t.Object({
  enabled: t.Optional(t.Boolean({ description: "Circuit breakers on this provider's keys (default true): a key that keeps failing is left out until its cooldown ends." })),
  failure_threshold: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "Failures in a row (429, 5xx, timeouts, connection errors; for one model: its 404s and malformed replies) that open a key's breaker, or the key's breaker for that model (default 5)." })),
  window_seconds: t.Optional(t.Integer({ minimum: 1, description: "The failures must fall within this many seconds of each other (default 60)." })),
  cooldown_seconds: t.Optional(t.Integer({ minimum: 1, description: "How long an open key is left out before a trial request (default 30); the provider's retry-after, when it sent one, instead." })),
  max_cooldown_seconds: t.Optional(t.Integer({ minimum: 1, description: "Cap on the cooldown, which doubles each time a trial fails (default 600)." })),
  trial_requests: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "Requests let through at once to a key whose cooldown ended, to decide whether it closes (default 1)." })),
  panic_threshold: t.Optional(
    t.Number({
      minimum: 0,
      maximum: 1,
      description:
        "Share of the keys that may serve a request whose breakers are open at which the provider is in panic (default 1: all of them): requests then go to every such key as if closed, except one a 429's retry-after holds back. 0 turns panic off: such a request is refused with 503 `provider_keys_open`.",
    }),
  ),
  conversation_affinity: t.Optional(
    t.Boolean({
      description:
        "Keeps each conversation on the key that answered its last turn while that key may serve (default false), so the provider's prompt cache for that key is hit. A conversation is named by `x-gw-session-id`, Claude Code's or Codex's session header, or its system prompt and first user turn.",
    }),
  ),
  strategy: t.Optional(
    t.Union([t.Literal("weighted"), t.Literal("least_latency"), t.Literal("least_busy")], {
      description: "How a key is chosen among those that may serve: `weighted` at random by weight (default), `least_latency` the fastest by recent time to first byte (the others still sampled now and then), `least_busy` the fewest requests in flight.",
    }),
  ),
}, { description: "Health-aware routing: each key's circuit breaker (shared by every node) and how a key is chosen." });
export type HealthConfig = Static<typeof HealthConfig>;

export const NetworkConfig = t.Object({
  base_url: t.Optional(t.String({ format: "uri", description: "Where the provider's API is (default: the provider's own); any OpenAI-compatible server for a custom provider." })),
  extra_headers: t.Optional(t.Record(Str, Str, { description: "Headers sent with every request to the provider." })),
  default_request_timeout_in_seconds: t.Optional(t.Integer({ minimum: 0, description: "How long one provider request may take." })),
  stream_idle_timeout_in_seconds: t.Optional(
    t.Integer({ minimum: 0, description: "Seconds a stream may send nothing between chunks before the gateway ends it as timed out; 0 or unset: the request timeout." }),
  ),
  max_retries: t.Optional(t.Integer({ minimum: 0, maximum: 10, description: "Retries of a 5xx or network error on the same key; a 429 moves to another key." })),
  retry_backoff_initial: t.Optional(t.Integer({ minimum: 0, description: "Milliseconds before the first retry; each further retry doubles it, jittered." })),
  retry_backoff_max: t.Optional(t.Integer({ minimum: 0, description: "Cap in milliseconds on one retry delay." })),
  health: t.Optional(HealthConfig),
});
export type NetworkConfig = Static<typeof NetworkConfig>;

export const CustomProviderConfig = t.Object({
  base_provider_type: t.String({ minLength: 1, description: "The built-in provider whose wire format the custom provider speaks (`openai` for any OpenAI-compatible server, `anthropic`, `gemini`, `bedrock`, `cohere`, ...)." }),
});

const providerFields = {
  keys: t.Optional(t.Array(ProviderKeyInput)),
  network_config: t.Optional(NetworkConfig),
  custom_provider_config: t.Optional(CustomProviderConfig),
};

export const ProviderName = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_.-]*$" });

/** Body of POST /api/providers. */
export const ProviderCreateInput = t.Object({ provider: ProviderName, ...providerFields }, ACCEPTS_READ_FIELDS);
/** Body of PUT /api/providers/{provider}; the name comes from the path. */
export const ProviderUpdateInput = t.Object(providerFields, ACCEPTS_READ_FIELDS);
/** A provider as written in config.json, keyed by its name. */
export const ProviderSeed = t.Object(providerFields);

export type ProviderUpdateInput = Static<typeof ProviderUpdateInput>;
