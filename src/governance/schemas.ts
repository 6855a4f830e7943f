import { type Static, t } from "elysia";
import { type TObject, Type } from "@sinclair/typebox";
import { INT32_MAX } from "../http/integers";
import { PageLimit, PageOffset } from "../http/pagination";
import { virtualKeyCreateExample } from "./examples";
import { BudgetSpec, McpConfig, McpToolSearch, PricePatch, ProviderConfig, RateLimitSpec, RoutingTarget, SessionBudget } from "../db/schema/types";

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
  /** Tool search in the key's chat requests; `null` clears it. */
  mcp_tool_search: t.Optional(t.Union([McpToolSearch, t.Null()])),
  /** Names of the A2A agents this key may call. */
  agent_grants: t.Optional(t.Array(t.String({ minLength: 1 }))),
  allowed_prompts: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 128 }), { description: "The only prompts the key may run; a key with any makes no other inference call. Empty (the default): no such limit." })),
  /** What each session of the key may spend; `null` clears it. */
  session_budgets: t.Optional(t.Union([SessionBudget, t.Null()])),
  /** Every streamed reply of the key kept resumable (default false); `x-gw-resumable: false` opts a call out. */
  resumable_streams: t.Optional(t.Boolean({ description: "Keep every streamed chat, message and Responses reply of the key resumable (default false), as `x-gw-resumable: true` asks; `x-gw-resumable: false` opts a call out." })),
};

export const VirtualKeyCreateInput = t.Object(virtualKeyFields, { examples: [virtualKeyCreateExample] });
// From the fields, not the schema: the schema's example is typed by it.
export type VirtualKeyCreateInput = Static<TObject<typeof virtualKeyFields>>;
/** Omitted fields keep their value; `null` clears `team_id`, `customer_id`, `rate_limit` and `session_budgets`. */
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
