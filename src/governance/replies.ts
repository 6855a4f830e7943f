import { type Static, Type as t } from "@sinclair/typebox";
import { BudgetSpec, McpConfig, PricePatch, ProviderConfig, RateLimitSpec, RoutingTarget, SessionBudget } from "../db/schema/types";
import { RoutingScope } from "./schemas";
import { Message, PageFields, Timestamp } from "../http/replies";

/** What the management API answers about governance records: the replies' one description. */

const Reference = t.Object({ id: t.String(), name: t.String() });
const NullableReference = t.Union([Reference, t.Null()]);
const NullableId = t.Union([t.String(), t.Null()]);
const Limits = { budgets: t.Array(BudgetSpec), rate_limit: t.Union([RateLimitSpec, t.Null()]) };

export const Customer = t.Object({ id: t.String(), name: t.String(), ...Limits, created_at: Timestamp, updated_at: Timestamp }, { description: "A customer: budgets and rate limits shared by its teams and keys." });
export type Customer = Static<typeof Customer>;

export const Team = t.Object(
  { id: t.String(), name: t.String(), ...Limits, created_at: Timestamp, updated_at: Timestamp, customer_id: NullableId, customer: NullableReference },
  { description: "A team: budgets and rate limits shared by its keys, under an optional customer." },
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
  agent_grants: t.Array(t.String()),
  session_budgets: t.Union([SessionBudget, t.Null()]),
  resumable_streams: t.Boolean({ description: "Every streamed reply of the key kept resumable." }),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const VirtualKey = t.Object(virtualKeyFields, { description: "A virtual key, without its value." });
export type VirtualKey = Static<typeof VirtualKey>;
/** On create and rotate only: the value, answered once. */
export const VirtualKeyWithValue = t.Object({ ...virtualKeyFields, value: t.String({ description: "The key (sk-gw-…): shown this once, only its hash is kept." }) });

export const VirtualKeyList = t.Object({ virtual_keys: t.Array(VirtualKey), ...PageFields });
export const VirtualKeyReply = t.Object({ virtual_key: VirtualKey });
export const VirtualKeyWritten = t.Object({ message: Message, virtual_key: VirtualKey });
export const VirtualKeyIssued = t.Object({ message: Message, virtual_key: VirtualKeyWithValue });

export const SessionSpent = t.Object(
  {
    session_id: t.String({ description: "The conversation id that names the session (an agent run)." }),
    cost: t.Number({ description: "USD charged to the session so far." }),
    tokens: t.Integer({ description: "Tokens charged to the session so far." }),
    requests: t.Integer(),
    last_request_at: Timestamp,
    exceeded: t.Union([t.Literal("max_cost"), t.Literal("max_tokens"), t.Null()], { description: "The limit of `session_budgets` the session reached: its next request is refused with 402." }),
  },
  { description: "What one session of a virtual key spent, as this node counted it." },
);
export const SessionSpentList = t.Object({ session_budgets: t.Union([SessionBudget, t.Null()]), sessions: t.Array(SessionSpent) });

export const TeamList = t.Object({ teams: t.Array(Team), ...PageFields });
export const TeamReply = t.Object({ team: Team });
export const TeamWritten = t.Object({ message: Message, team: Team });
export const CustomerList = t.Object({ customers: t.Array(Customer), ...PageFields });
export const CustomerReply = t.Object({ customer: Customer });
export const CustomerWritten = t.Object({ message: Message, customer: Customer });

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
  { description: "A routing rule: where requests that meet its condition go." },
);
export const RoutingRuleList = t.Object({ rules: t.Array(RoutingRule), ...PageFields });
export const RoutingRuleReply = t.Object({ rule: RoutingRule });
export const RoutingRuleWritten = t.Object({ message: Message, rule: RoutingRule });

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
  { description: "An operator's price that wins over the shipped catalogue for the models it matches." },
);
export const PricingOverrideList = t.Object({ pricing_overrides: t.Array(PricingOverride), ...PageFields });
export const PricingOverrideReply = t.Object({ pricing_override: PricingOverride });
export const PricingOverrideWritten = t.Object({ message: Message, pricing_override: PricingOverride });
