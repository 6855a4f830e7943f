/**
 * What the dashboard reads from and writes to the management API, named for the pages: each an
 * alias of the types generated from the OpenAPI document (client/openapi.d.ts), so a field
 * renamed on the server breaks the typecheck, not the page. The few replies the document does not
 * describe yet are written out below, marked so.
 */
import type { GatewayErrorBody, Reply, RequestBody } from "../../../client";

export type { GatewayErrorBody };

type Item<List> = List extends ReadonlyArray<infer Row> ? Row : never;

export type AuthProbe = Reply<"/api/session/is-auth-enabled", "get">;
/** The identity providers the sign-in page offers, and whether the password form is open. */
export type SignInProviders = Reply<"/api/session/oidc/providers", "get">;
export type Me = Reply<"/api/session/me", "get">;
export type AuthConfig = Reply<"/api/config/auth", "get">;
export type AuthConfigInput = RequestBody<"/api/config/auth", "put">;

export type LogPage = Reply<"/api/logs", "get">;
export type LogSummary = Item<LogPage["logs"]>;
export type Attempt = Item<LogSummary["attempts"]>;
/** What one guardrail check found in a request: never the matched text. */
export type GuardrailVerdict = Item<LogSummary["guardrails"]>;
export type LogDetail = Reply<"/api/logs/{id}", "get">;
export type LogStats = Reply<"/api/logs/stats", "get">;
/** Usage per time bucket, a series per model, provider, virtual key or error type. */
export type LogSeries = Reply<"/api/logs/series", "get">;
export type Histogram = Reply<"/api/logs/histogram", "get">;
export type HistogramBucket = Item<Histogram["buckets"]>;
type AnyRankings = Reply<"/api/logs/rankings", "get">;
export type Rankings = Extract<AnyRankings, { rankings: Array<{ model: string }> }>;
export type Ranking = Item<Rankings["rankings"]>;
/** `group_by=virtual_key`: a row per virtual key, the name logged with its latest request. */
export type VirtualKeyRankings = Extract<AnyRankings, { rankings: Array<{ virtual_key_id: string }> }>;
export type VirtualKeyRanking = Item<VirtualKeyRankings["rankings"]>;

export type Provider = Item<Reply<"/api/providers", "get">["providers"]>;
export type ProviderKey = Item<Provider["keys"]>;
export type NetworkConfig = NonNullable<ProviderInput["network_config"]>;
export type ProviderInput = RequestBody<"/api/providers", "post">;
export type ProviderKeyInput = RequestBody<"/api/providers/{provider}/keys", "post">;

export type PromptSummary = Item<Reply<"/api/prompts", "get">["prompts"]>;
export type PromptDetail = Reply<"/api/prompts/{name}", "get">;
export type PromptVersion = Item<PromptDetail["versions"]>;
export type PromptVariable = Item<PromptVersion["variables"]>;
export type PromptCreateInput = RequestBody<"/api/prompts", "post">;
export type PromptVersionInput = RequestBody<"/api/prompts/{name}/versions", "post">;
export type PromptRunFields = RequestBody<"/api/prompts/{name}/render", "post">;
export type PromptRender = Reply<"/api/prompts/{name}/render", "post">;
export type PromptSync = Reply<"/api/prompts/import", "post">;
/** A prompt's runs summed per version, from its log rows. */
export type PromptVersionUsage = Item<Reply<"/api/logs/prompt-versions", "get">["versions"]>;

export type VirtualKey = Item<Reply<"/api/governance/virtual-keys", "get">["virtual_keys"]>;
export type VirtualKeyInput = RequestBody<"/api/governance/virtual-keys/{id}", "put">;
export type Budget = Item<VirtualKey["budgets"]>;
export type RateLimit = NonNullable<VirtualKey["rate_limit"]>;
export type ProviderConfig = Item<VirtualKey["provider_configs"]>;
/** The tools a virtual key may call on one MCP client: names, `*` for all, empty for none. */
export type McpToolGrant = Item<VirtualKey["mcp_configs"]>;
export type ToolSearchSetting = NonNullable<VirtualKey["mcp_tool_search"]>;
/** What each session (agent run) of a virtual key may spend. */
export type SessionBudget = NonNullable<VirtualKey["session_budgets"]>;
/** What one session of a virtual key spent, as the node that answered counted it. */
export type SessionSpent = Item<Reply<"/api/governance/virtual-keys/{id}/sessions", "get">["sessions"]>;

export type Customer = Item<Reply<"/api/governance/customers", "get">["customers"]>;
export type Team = Item<Reply<"/api/governance/teams", "get">["teams"]>;
export type OrgInput = RequestBody<"/api/governance/teams/{team_id}", "put">;

export type RoutingRule = Item<Reply<"/api/governance/routing-rules", "get">["rules"]>;
export type RoutingTarget = Item<RoutingRule["targets"]>;
export type RoutingScope = RoutingRule["scope"];
export type RoutingRuleInput = RequestBody<"/api/governance/routing-rules", "post">;

export type PricingOverride = Item<Reply<"/api/governance/pricing-overrides", "get">["pricing_overrides"]>;
export type PriceField = keyof PricingOverride["patch"];
export type PricingOverrideInput = RequestBody<"/api/governance/pricing-overrides", "post">;

export type BudgetUsage = Item<Reply<"/api/governance/budgets", "get">["budgets"]>;
export type RateLimitUsage = Item<Reply<"/api/governance/rate-limits", "get">["rate_limits"]>;

export type WebhookEndpoint = Item<Reply<"/api/webhooks", "get">["webhooks"]>;
export type WebhookEvent = Item<WebhookEndpoint["events"]>;
export type WebhookEndpointInput = RequestBody<"/api/webhooks/{id}", "put">;
export type Delivery = Item<Reply<"/api/webhooks/{id}/deliveries", "get">["deliveries"]>;
export type DeliveryAttempt = Item<Delivery["attempts"]>;

export type AsyncJobPage = Reply<"/api/async-jobs", "get">;
export type AsyncJob = Item<AsyncJobPage["jobs"]>;
export type AsyncJobStatus = AsyncJob["status"];

export type McpClient = Item<Reply<"/api/mcp/clients", "get">["clients"]>;
export type McpConnectionType = McpClient["connection_type"];
export type McpOAuthConnection = NonNullable<NonNullable<McpClient["oauth"]>["connection"]>;
export type McpClientInput = RequestBody<"/api/mcp/client/{id}", "put">;
export type McpLog = Item<Reply<"/api/mcp-logs", "get">["logs"]>;
export type CostHistogram = Reply<"/api/mcp-logs/histogram/cost", "get">;

/** A per-user header flow waiting for a caller's values, or the caller's consent at the authorization server. */
export type VirtualServer = Item<Reply<"/api/mcp/virtual-servers", "get">["virtual_servers"]>;
export type VirtualServerInput = RequestBody<"/api/mcp/virtual-servers", "post">;
export type VirtualServerTool = Item<VirtualServer["tools"]>;
export type VirtualServerPrompt = Item<VirtualServer["prompts"]>;
export type McpPerUserFlow = Item<Reply<"/api/mcp/per-user-headers/flows", "get">["flows"]>;

export type Plugin = Item<Reply<"/api/plugins", "get">["plugins"]>;
export type PluginInput = RequestBody<"/api/plugins/{name}", "put">;

export type Agent = Item<Reply<"/api/agents", "get">["agents"]>;
export type AgentInput = RequestBody<"/api/agents/{name}", "put">;
export type AgentTask = Item<Reply<"/api/agents/history", "get">["tasks"]>;

export type Permission = Item<Reply<"/api/governance/rbac/permissions", "get">["permissions"]>;
export type Role = Item<Reply<"/api/governance/rbac/roles", "get">["roles"]>;
export type RbacUser = Item<Reply<"/api/governance/rbac/users", "get">["users"]>;
export type ApiKey = Item<Reply<"/api/api-keys", "get">["api_keys"]>;
export type AuditEvent = Item<Reply<"/api/governance/audit-logs", "get">["audit_logs"]>;

export type WarpConfig = Reply<"/api/warp/config", "get">;
export type WarpConfigInput = RequestBody<"/api/warp/config", "put">;
export type WarpChatInput = RequestBody<"/api/warp/chat", "post">;

export type WarpMessage = Item<Reply<"/api/warp/conversations/{id}", "get">["messages"]>;

export type WarpConversation = Item<Reply<"/api/warp/conversations", "get">["conversations"]>;

/** The server-sent events of POST /api/warp/chat (a stream: the document describes no events). */
export interface WarpChatEvents {
  start: { conversation_id: string; provider: string; model: string };
  delta: { content: string };
  tool_call_start: { id: string; name: string; arguments: string };
  tool_call_end: { id: string; name: string; ok: boolean; result?: unknown; error?: string };
  error: { error?: { message?: string } };
  done: { conversation_id: string; finish_reason: string };
}

type DescribedMachine = Item<Reply<"/api/actors/machines", "get">["machines"]>;
/** A machine's state: the document describes its child states loosely (the schema is not recursive). */
export type MachineState = Omit<DescribedMachine["root"], "states"> & { states: Record<string, MachineState> };
export type Machine = Omit<DescribedMachine, "root"> & { root: MachineState };
export type ActorSummary = Item<Reply<"/api/actors", "get">["actors"]>;
export type ActorDetail = Reply<"/api/actors/{kind}/{id}", "get">;
export type ActorTransition = Item<ActorDetail["transitions"]>;

export type Guardrail = Item<Reply<"/api/guardrails", "get">["guardrails"]>;
export type GuardrailCheck = Item<Guardrail["checks"]>;
export type GuardrailScope = Guardrail["scope"];
export type GuardrailCheckType = GuardrailCheck["type"];
export type GuardrailStage = NonNullable<GuardrailCheck["stage"]>;
export type GuardrailAction = NonNullable<GuardrailCheck["action"]>;
export type GuardrailInput = RequestBody<"/api/guardrails/{id}", "put">;

/** GET /api/log-sinks: one configured log sink and where it stands. */
export type LogSinkStatus = Item<Reply<"/api/log-sinks", "get">["sinks"]>;
export type LogSinkInput = RequestBody<"/api/log-sinks", "post">;
export type LogSinkChange = RequestBody<"/api/log-sinks/{name}", "put">;

export type AlertRule = Item<Reply<"/api/alerts/rules", "get">["rules"]>;
export type AlertRuleInput = RequestBody<"/api/alerts/rules", "post">;
export type AlertState = AlertRule["state"];
export type AlertSeverity = AlertRule["severity"];
export type AlertScope = AlertRule["scope"];
export type AlertHistoryEntry = Item<Reply<"/api/alerts/rules/{id}/history", "get">["history"]>;
export type AlertChannel = Item<Reply<"/api/alerts/channels", "get">["channels"]>;
export type AlertChannelInput = RequestBody<"/api/alerts/channels", "post">;
export type AlertChannelType = AlertChannel["type"];
export type AlertBuiltin = Item<Reply<"/api/alerts/builtins", "get">["builtins"]>;
export type BudgetForecast = Item<Reply<"/api/alerts/forecast", "get">["forecasts"]>;

/** GET /api/logs/conversations/{id}: a conversation's turns, oldest first, with their tokens and cost. */
export type ConversationThread = Reply<"/api/logs/conversations/{id}", "get">;
