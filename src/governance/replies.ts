import { type Static, Type as t } from "@sinclair/typebox";
import { BudgetSpec, McpConfig, McpToolSearch, PricePatch, ProviderConfig, RateLimitSpec, RoutingTarget, SessionBudget } from "../db/schema/types";
import { RoutingScope } from "./schemas";
import { Message, PageFields, Timestamp } from "../http/replies";
import { BudgetForecast } from "../budget-forecast/schema";

/** What the management API answers about governance records: the replies' one description. */

const Reference = t.Object({ id: t.String(), name: t.String() });
const NullableReference = t.Union([Reference, t.Null()]);
const NullableId = t.Union([t.String(), t.Null()]);
const Limits = {
  budgets: t.Array(BudgetSpec),
  rate_limit: t.Union([RateLimitSpec, t.Null()]),
  forecasts: t.Array(BudgetForecast, { description: "When each budget runs out at the last hour's and the last day's rate of spend (a key's include its provider configs' budgets); empty for a caller who may not read alerts." }),
};

export const Customer = t.Object({ id: t.String(), name: t.String(), ...Limits, created_at: Timestamp, updated_at: Timestamp }, { title: "Customer", description: "A customer: budgets and rate limits shared by its teams and keys." });
export type Customer = Static<typeof Customer>;

export const Team = t.Object(
  { id: t.String(), name: t.String(), ...Limits, created_at: Timestamp, updated_at: Timestamp, customer_id: NullableId, customer: NullableReference },
  { title: "Team", description: "A team: budgets and rate limits shared by its keys, under an optional customer." },
);
export type Team = Static<typeof Team>;

const virtualKeyFields = {
  id: t.String(),
  name: t.String(),
  description: t.String(),
  is_active: t.Boolean(),
  key_prefix: t.String({ description: "The start of the key's value, to recognise it by." }),
  team_id: NullableId,
  customer_id: NullableId,
  team: NullableReference,
  customer: NullableReference,
  provider_configs: t.Array(ProviderConfig),
  ...Limits,
  mcp_configs: t.Array(McpConfig),
  mcp_tool_search: t.Union([McpToolSearch, t.Null()]),
  agent_grants: t.Array(t.String()),
  allowed_prompts: t.Array(t.String(), { description: "The only prompts the key may run, and nothing else; empty: no such limit." }),
  session_budgets: t.Union([SessionBudget, t.Null()]),
  resumable_streams: t.Boolean({ description: "Every streamed reply of the key kept resumable." }),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const VirtualKey = t.Object(virtualKeyFields, { title: "VirtualKey", description: "A virtual key, without its value." });
export type VirtualKey = Static<typeof VirtualKey>;
/** On create and rotate only: the value, answered once. */
export const VirtualKeyWithValue = t.Object({ ...virtualKeyFields, value: t.String({ description: "The key (sk-gw-…): shown this once, only its hash is kept." }) }, { title: "VirtualKeyWithValue" });

export const VirtualKeyList = t.Object({ virtual_keys: t.Array(VirtualKey), ...PageFields }, { title: "VirtualKeyList" });
export const VirtualKeyReply = t.Object({ virtual_key: VirtualKey }, { title: "VirtualKeyReply" });
export const VirtualKeyWritten = t.Object({ message: Message, virtual_key: VirtualKey }, { title: "VirtualKeyWritten" });
export const VirtualKeyIssued = t.Object({ message: Message, virtual_key: VirtualKeyWithValue }, { title: "VirtualKeyIssued" });

export const SessionSpent = t.Object(
  {
    session_id: t.String({ description: "The conversation id that names the session (an agent run)." }),
    cost: t.Number({ description: "USD charged to the session so far." }),
    tokens: t.Integer({ description: "Tokens charged to the session so far." }),
    requests: t.Integer(),
    last_request_at: Timestamp,
    exceeded: t.Union([t.Literal("max_cost"), t.Literal("max_tokens"), t.Null()], { description: "The limit of `session_budgets` the session reached: its next request is refused with 402." }),
  },
  { title: "SessionSpent", description: "What one session of a virtual key spent: as this node counted it, or every node sharing the database." },
);
export const SessionSpentList = t.Object({ session_budgets: t.Union([SessionBudget, t.Null()]), sessions: t.Array(SessionSpent) }, { title: "SessionSpentList" });

export const TeamList = t.Object({ teams: t.Array(Team), ...PageFields }, { title: "TeamList" });
export const TeamReply = t.Object({ team: Team }, { title: "TeamReply" });
export const TeamWritten = t.Object({ message: Message, team: Team }, { title: "TeamWritten" });
export const CustomerList = t.Object({ customers: t.Array(Customer), ...PageFields }, { title: "CustomerList" });
export const CustomerReply = t.Object({ customer: Customer }, { title: "CustomerReply" });
export const CustomerWritten = t.Object({ message: Message, customer: Customer }, { title: "CustomerWritten" });

export const RoutingRule = t.Object(
  {
    id: t.String(),
    name: t.String(),
    description: t.String(),
    enabled: t.Boolean(),
    cel_expression: t.String({ description: "The CEL condition a request must meet." }),
    targets: t.Array(RoutingTarget),
    fallbacks: t.Array(t.String(), { description: "`provider/model`, tried in order when the chosen target fails." }),
    scope: RoutingScope,
    scope_id: NullableId,
    priority: t.Integer({ description: "Lower first, within its scope." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "RoutingRule", description: "A routing rule: where requests that meet its condition go." },
);
export const RoutingRuleList = t.Object({ rules: t.Array(RoutingRule), ...PageFields }, { title: "RoutingRuleList" });
export const RoutingRuleReply = t.Object({ rule: RoutingRule }, { title: "RoutingRuleReply" });
export const RoutingRuleWritten = t.Object({ message: Message, rule: RoutingRule }, { title: "RoutingRuleWritten" });

export const PricingOverride = t.Object(
  {
    id: t.String(),
    name: t.String(),
    scope_kind: t.Union([t.Literal("global"), t.Literal("provider"), t.Literal("provider_key"), t.Literal("virtual_key")]),
    scope_id: NullableId,
    match_type: t.Union([t.Literal("exact"), t.Literal("prefix")]),
    pattern: t.String(),
    request_types: t.Array(t.String(), { description: "Empty: every request type." }),
    patch: PricePatch,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "PricingOverride", description: "An operator's price that wins over the shipped catalogue for the models it matches." },
);
export const PricingOverrideList = t.Object({ pricing_overrides: t.Array(PricingOverride), ...PageFields }, { title: "PricingOverrideList" });
export const PricingOverrideReply = t.Object({ pricing_override: PricingOverride }, { title: "PricingOverrideReply" });
export const PricingOverrideWritten = t.Object({ message: Message, pricing_override: PricingOverride }, { title: "PricingOverrideWritten" });

const LimitOwnerFields = {
  level: t.Union([t.Literal("virtual_key"), t.Literal("provider_config"), t.Literal("team"), t.Literal("customer")], { description: "Whose limit it is." }),
  owner_id: t.String({ description: "A provider config's id is `<virtual key id>/<provider>`." }),
  owner_name: t.String(),
};

export const BudgetUsage = t.Object(
  {
    ...LimitOwnerFields,
    max_limit: t.Number({ description: "USD per window." }),
    reset_duration: t.String({ description: "The window: `30s`, `5m`, `1h`, `1d`, `1w`, `1M`, `1Y`." }),
    calendar_aligned: t.Boolean({ description: "Whether windows start at calendar boundaries rather than at the first request." }),
    current_usage: t.Number({ description: "USD spent in the current window." }),
    remaining: t.Number({ description: "USD left in the current window, never below zero." }),
    last_reset: Timestamp,
    resets_at: Timestamp,
  },
  { title: "BudgetUsage", description: "One budget with what its current window used." },
);

const windowFields = (unit: string) => ({
  max_limit: t.Optional(t.Integer({ description: `${unit} per window.` })),
  reset_duration: t.Optional(t.String()),
  current_usage: t.Optional(t.Integer({ description: `${unit} used in the current window.` })),
  remaining: t.Optional(t.Integer()),
  resets_at: t.Optional(Timestamp),
});
const tokens = windowFields("Tokens");
const requests = windowFields("Requests");

export const RateLimitUsage = t.Object(
  {
    ...LimitOwnerFields,
    token_max_limit: tokens.max_limit,
    token_reset_duration: tokens.reset_duration,
    token_current_usage: tokens.current_usage,
    token_remaining: tokens.remaining,
    token_resets_at: tokens.resets_at,
    request_max_limit: requests.max_limit,
    request_reset_duration: requests.reset_duration,
    request_current_usage: requests.current_usage,
    request_remaining: requests.remaining,
    request_resets_at: requests.resets_at,
  },
  { title: "RateLimitUsage", description: "One owner's rate limit with what its current windows used: the token half, the request half, or both." },
);
export type RateLimitUsage = Static<typeof RateLimitUsage>;

export const BudgetUsageList = t.Object({ budgets: t.Array(BudgetUsage), count: t.Integer() }, { title: "BudgetUsageList" });
export const RateLimitUsageList = t.Object({ rate_limits: t.Array(RateLimitUsage), count: t.Integer() }, { title: "RateLimitUsageList" });
export const Quota = t.Object(
  { virtual_key: Reference, budgets: t.Array(BudgetUsage), rate_limits: t.Array(RateLimitUsage) },
  { title: "Quota", description: "What is left of every budget and rate limit the calling virtual key answers to: its own, its team's, its customer's and its provider configs'." },
);
