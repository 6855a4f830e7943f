import { type Static, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { INT32_MAX } from "../http/integers";
import { PageLimit, PageOffset } from "../http/pagination";

/** `30s`, `5m`, `1h`, `1d`, `1w`, `1M` (month), `1Y` (year). */
export const Duration = t.String({ pattern: "^[1-9][0-9]*(s|m|h|d|w|M|Y)$", description: "e.g. 30s, 5m, 1h, 1d, 1w, 1M, 1Y" });

export const BudgetSpec = t.Object({
  /** USD. */
  max_limit: t.Number({ minimum: 0 }),
  reset_duration: Duration,
  /** Reset at the start of each UTC day, week (Monday), month or year instead of rolling; d, w, M and Y only. */
  calendar_aligned: t.Optional(t.Boolean()),
});
export type BudgetSpec = Static<typeof BudgetSpec>;

export const RateLimitSpec = t.Object({
  token_max_limit: t.Optional(Type.Integer({ minimum: 0 })),
  token_reset_duration: t.Optional(Duration),
  request_max_limit: t.Optional(Type.Integer({ minimum: 0 })),
  request_reset_duration: t.Optional(Duration),
});
export type RateLimitSpec = Static<typeof RateLimitSpec>;

export const ProviderConfig = t.Object({
  provider: t.String({ minLength: 1 }),
  /** Share of requests whose model names no provider; 0 is picked only when no other has weight. */
  weight: t.Optional(t.Number({ minimum: 0 })),
  /** Models this key may use on the provider; empty or `*` allows all. */
  allowed_models: t.Optional(t.Array(t.String({ minLength: 1 }))),
  /** Provider keys this key may use; empty allows all of the provider's keys. */
  key_ids: t.Optional(t.Array(t.String({ minLength: 1 }))),
  budgets: t.Optional(t.Array(BudgetSpec)),
  rate_limit: t.Optional(RateLimitSpec),
});
export type ProviderConfig = Static<typeof ProviderConfig>;

export const McpConfig = t.Object({
  mcp_client_name: t.String({ minLength: 1 }),
  /** Tools this key may execute on the client; empty allows none, `*` all. */
  tools_to_execute: t.Optional(t.Array(t.String())),
});
export type McpConfig = Static<typeof McpConfig>;

const NullableId = t.Union([t.String({ minLength: 1 }), t.Null()]);

const virtualKeyFields = {
  name: t.String({ minLength: 1 }),
  description: t.Optional(t.String()),
  is_active: t.Optional(t.Boolean()),
  /** Accepted for `is_active`. */
  active: t.Optional(t.Boolean()),
  team_id: t.Optional(NullableId),
  customer_id: t.Optional(NullableId),
  provider_configs: t.Optional(t.Array(ProviderConfig)),
  budgets: t.Optional(t.Array(BudgetSpec)),
  rate_limit: t.Optional(t.Union([RateLimitSpec, t.Null()])),
  mcp_configs: t.Optional(t.Array(McpConfig)),
  /** Names of the A2A agents this key may call. */
  agent_grants: t.Optional(t.Array(t.String({ minLength: 1 }))),
};

export const VirtualKeyCreateInput = t.Object(virtualKeyFields);
export type VirtualKeyCreateInput = Static<typeof VirtualKeyCreateInput>;
/** Omitted fields keep their value; `null` clears `team_id`, `customer_id` and `rate_limit`. */
export const VirtualKeyUpdateInput = t.Partial(t.Object(virtualKeyFields));
export type VirtualKeyUpdateInput = Static<typeof VirtualKeyUpdateInput>;

const orgFields = {
  name: t.String({ minLength: 1 }),
  budgets: t.Optional(t.Array(BudgetSpec)),
  rate_limit: t.Optional(t.Union([RateLimitSpec, t.Null()])),
};
export const CustomerInput = t.Object(orgFields);
export type CustomerInput = Static<typeof CustomerInput>;
export const CustomerUpdateInput = t.Partial(CustomerInput);
export type CustomerUpdateInput = Static<typeof CustomerUpdateInput>;
export const TeamInput = t.Object({ ...orgFields, customer_id: t.Optional(NullableId) });
export type TeamInput = Static<typeof TeamInput>;
export const TeamUpdateInput = t.Partial(TeamInput);
export type TeamUpdateInput = Static<typeof TeamUpdateInput>;

export const RoutingTarget = t.Object({
  /** Empty keeps the request's provider. */
  provider: t.Optional(t.String()),
  /** Empty keeps the request's model. */
  model: t.Optional(t.String()),
  /** Pins one key of the provider. */
  key_id: t.Optional(t.String()),
  weight: t.Optional(t.Number({ minimum: 0 })),
});
export type RoutingTarget = Static<typeof RoutingTarget>;

export const RoutingScope = t.Union([t.Literal("global"), t.Literal("customer"), t.Literal("team"), t.Literal("virtual_key")]);
export type RoutingScope = Static<typeof RoutingScope>;

const routingRuleFields = {
  name: t.String({ minLength: 1 }),
  description: t.Optional(t.String()),
  enabled: t.Optional(t.Boolean()),
  cel_expression: t.String(),
  targets: t.Array(RoutingTarget, { minItems: 1 }),
  /** `provider/model`, tried in order when the chosen target fails. */
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
  scope: t.Optional(RoutingScope),
  scope_id: t.Optional(NullableId),
  priority: t.Optional(Type.Integer({ minimum: -INT32_MAX, maximum: INT32_MAX })),
};
export const RoutingRuleInput = t.Object(routingRuleFields);
export type RoutingRuleInput = Static<typeof RoutingRuleInput>;
export const RoutingRuleUpdateInput = t.Partial(t.Object(routingRuleFields));
export type RoutingRuleUpdateInput = Static<typeof RoutingRuleUpdateInput>;

const PerToken = t.Optional(t.Number({ minimum: 0 }));
/** USD per token (or per unit, for what is priced so); the names of the shipped catalogue (src/governance/pricing/catalog.json). */
export const PricePatch = t.Object({
  input_cost_per_token: PerToken,
  output_cost_per_token: PerToken,
  cache_read_input_token_cost: PerToken,
  cache_creation_input_token_cost: PerToken,
  output_cost_per_reasoning_token: PerToken,
  /** Audio in and out (the Realtime API, audio chat models), where it costs more than text. */
  input_cost_per_audio_token: PerToken,
  output_cost_per_audio_token: PerToken,
  cache_read_input_audio_token_cost: PerToken,
  /** What is priced by the unit: an image made (DALL·E), a character read out (tts-1), a second of audio heard (whisper-1) or of video made (Sora). */
  output_cost_per_image: PerToken,
  input_cost_per_character: PerToken,
  input_cost_per_second: PerToken,
  output_cost_per_second: PerToken,
});
export type PricePatch = Static<typeof PricePatch>;

const pricingOverrideFields = {
  name: t.String({ minLength: 1 }),
  scope_kind: t.Optional(t.Union([t.Literal("global"), t.Literal("provider"), t.Literal("provider_key"), t.Literal("virtual_key")])),
  /** The provider name, provider key id or virtual key id the override is narrowed to. */
  scope_id: t.Optional(NullableId),
  match_type: t.Optional(t.Union([t.Literal("exact"), t.Literal("prefix")])),
  /** The model name, or its beginning for `prefix` (a trailing `*` is allowed). */
  pattern: t.String({ minLength: 1 }),
  /** `chat.completion`, `embedding`, ...; empty applies to every request type. */
  request_types: t.Optional(t.Array(t.String({ minLength: 1 }))),
  patch: PricePatch,
};
export const PricingOverrideInput = t.Object(pricingOverrideFields);
export type PricingOverrideInput = Static<typeof PricingOverrideInput>;
export const PricingOverrideUpdateInput = t.Partial(t.Object(pricingOverrideFields));
export type PricingOverrideUpdateInput = Static<typeof PricingOverrideUpdateInput>;

export const ListQuery = t.Object({
  search: t.Optional(t.String({ description: "case-insensitive match on the name" })),
  limit: PageLimit(),
  offset: PageOffset(),
});
export type ListQuery = Static<typeof ListQuery>;
