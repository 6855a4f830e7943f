import { call, type Query } from "./client";
import type * as T from "./types";

const json = (method: "POST" | "PUT" | "DELETE", body?: unknown) => ({ method, body });
const segment = encodeURIComponent;

export const session = {
  probe: () => call<T.AuthProbe>("/api/session/is-auth-enabled", { expect401: true }),
  signInProviders: () => call<T.SignInProviders>("/api/session/oidc/providers", { expect401: true }),
  me: () => call<T.Me>("/api/session/me"),
  setup: (token: string) => call<{ message: string }>("/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": token }, expect401: true }),
  login: (username: string, password: string) => call<{ token: string }>("/api/session/login", { ...json("POST", { username, password }), expect401: true }),
  logout: () => call<{ message: string }>("/api/session/logout", { method: "POST", expect401: true }),
  createAdmin: (input: T.AuthConfigInput) => call<{ is_configured: boolean }>("/api/config/auth", json("PUT", input)),
};

export const logs = {
  list: (query: Query, signal?: AbortSignal) => call<T.LogPage>("/api/logs", { query, signal }),
  get: (id: string) => call<T.LogDetail>(`/api/logs/${segment(id)}`),
  stats: (query: Query) => call<T.LogStats>("/api/logs/stats", { query }),
  histogram: (query: Query) => call<T.Histogram>("/api/logs/histogram", { query }),
  rankings: (query: Query) => call<T.Rankings>("/api/logs/rankings", { query }),
  series: (query: Query) => call<T.LogSeries>("/api/logs/series", { query }),
  virtualKeyRankings: (query: Query) => call<T.VirtualKeyRankings>("/api/logs/rankings", { query: { ...query, group_by: "virtual_key" } }),
  remove: (ids: string[]) => call<{ message: string }>("/api/logs", json("DELETE", { ids })),
};

export const providers = {
  list: () => call<{ providers: T.Provider[] }>("/api/providers"),
  create: (input: T.ProviderInput) => call<T.Provider>("/api/providers", json("POST", input)),
  update: (name: string, input: Omit<T.ProviderInput, "provider">) => call<T.Provider>(`/api/providers/${segment(name)}`, json("PUT", input)),
  remove: (name: string) => call<{ message: string }>(`/api/providers/${segment(name)}`, json("DELETE")),
  addKey: (name: string, input: T.ProviderKeyInput) => call<T.ProviderKey>(`/api/providers/${segment(name)}/keys`, json("POST", input)),
  updateKey: (name: string, id: string, input: T.ProviderKeyInput) => call<T.ProviderKey>(`/api/providers/${segment(name)}/keys/${segment(id)}`, json("PUT", input)),
  removeKey: (name: string, id: string) => call<{ message: string }>(`/api/providers/${segment(name)}/keys/${segment(id)}`, json("DELETE")),
  testKey: (name: string, id: string) => call<T.ProviderKey & { reachable_models: string[] }>(`/api/providers/${segment(name)}/keys/${segment(id)}/refresh-models`, json("POST")),
};

const governance = "/api/governance";

/** The five calls of a governance collection whose responses wrap the row in `wrapper`. */
function collection<Row, Input, Wrapper extends string>(path: string, wrapper: Wrapper, listName: string) {
  return {
    list: () => call<Record<string, Row[]>>(`${governance}/${path}`).then((page) => page[listName] ?? []),
    create: (input: Input) => call<Record<Wrapper, Row>>(`${governance}/${path}`, json("POST", input)).then((answer) => answer[wrapper]),
    update: (id: string, input: Partial<Input>) => call<Record<Wrapper, Row>>(`${governance}/${path}/${segment(id)}`, json("PUT", input)).then((answer) => answer[wrapper]),
    remove: (id: string) => call<{ message: string }>(`${governance}/${path}/${segment(id)}`, json("DELETE")),
  };
}

export const virtualKeys = {
  ...collection<T.VirtualKey, T.VirtualKeyInput & { name: string }, "virtual_key">("virtual-keys", "virtual_key", "virtual_keys"),
  /** The value is in this answer only: the key is shown once. */
  create: (input: T.VirtualKeyInput & { name: string }) => call<{ virtual_key: T.VirtualKey & { value: string } }>(`${governance}/virtual-keys`, json("POST", input)).then((answer) => answer.virtual_key),
  /** A new value, in this answer only; the old one stops working. */
  rotate: (id: string) => call<{ virtual_key: T.VirtualKey & { value: string } }>(`${governance}/virtual-keys/${segment(id)}/rotate`, json("POST")).then((answer) => answer.virtual_key),
  /** What each of the key's sessions spent against its `session_budgets`, most recent first. */
  sessions: (id: string) => call<{ sessions: T.SessionSpent[] }>(`${governance}/virtual-keys/${segment(id)}/sessions`).then((answer) => answer.sessions),
};
export const teams = collection<T.Team, T.OrgInput & { name: string }, "team">("teams", "team", "teams");
export const customers = collection<T.Customer, Omit<T.OrgInput, "customer_id"> & { name: string }, "customer">("customers", "customer", "customers");
export const routingRules = collection<T.RoutingRule, T.RoutingRuleInput, "rule">("routing-rules", "rule", "rules");
export const pricingOverrides = collection<T.PricingOverride, T.PricingOverrideInput, "pricing_override">("pricing-overrides", "pricing_override", "pricing_overrides");
export const usage = {
  budgets: () => call<{ budgets: T.BudgetUsage[] }>(`${governance}/budgets`).then((answer) => answer.budgets),
  rateLimits: () => call<{ rate_limits: Array<Record<string, string | number>> }>(`${governance}/rate-limits`).then((answer) => answer.rate_limits),
};

export const webhooks = {
  list: () => call<{ webhooks: T.WebhookEndpoint[] }>("/api/webhooks").then((answer) => answer.webhooks),
  /** The signing secret is in this answer only. */
  create: (input: T.WebhookEndpointInput & { name: string; url: string }) => call<{ endpoint: T.WebhookEndpoint; secret: string }>("/api/webhooks", json("POST", input)),
  update: (id: string, input: T.WebhookEndpointInput) => call<T.WebhookEndpoint>(`/api/webhooks/${segment(id)}`, json("PUT", input)),
  remove: (id: string) => call<{ message: string }>(`/api/webhooks/${segment(id)}`, json("DELETE")),
  rotateSecret: (id: string) => call<{ endpoint: T.WebhookEndpoint; secret: string }>(`/api/webhooks/${segment(id)}/rotate-secret`, json("POST")),
  test: (id: string) => call<T.Delivery>(`/api/webhooks/${segment(id)}/test`, json("POST")),
  deliveries: (id: string) => call<{ deliveries: T.Delivery[] }>(`/api/webhooks/${segment(id)}/deliveries`, { query: { limit: 50 } }).then((answer) => answer.deliveries),
  redeliver: (deliveryId: string) => call<{ status: string; webhook_id: string }>(`/api/webhooks/deliveries/${segment(deliveryId)}/redeliver`, json("POST")),
};

export const asyncJobs = {
  list: (query: Query) => call<T.AsyncJobPage>("/api/async-jobs", { query }),
};

export const mcp = {
  clients: () => call<{ clients: T.McpClient[] }>("/api/mcp/clients").then((answer) => answer.clients),
  create: (input: T.McpClientInput & { name: string; connection_type: T.McpConnectionType }) => call<T.McpClient>("/api/mcp/client", json("POST", input)),
  update: (id: string, input: T.McpClientInput) => call<T.McpClient>(`/api/mcp/client/${segment(id)}`, json("PUT", input)),
  remove: (id: string) => call<{ message: string }>(`/api/mcp/client/${segment(id)}`, json("DELETE")),
  reconnect: (id: string) => call<T.McpClient>(`/api/mcp/client/${segment(id)}/reconnect`, json("POST")),
  oauthConnect: (id: string) => call<{ authorization_url: string }>(`/api/mcp/client/${segment(id)}/oauth/connect`, json("POST")),
  perUserFlows: (state: string) => call<{ flows: T.McpPerUserFlow[] }>("/api/mcp/per-user-headers/flows", { query: { state } }).then((answer) => answer.flows),
  logs: (query: Query) => call<{ logs: T.McpLog[] }>("/api/mcp-logs", { query }).then((answer) => answer.logs),
  costHistogram: (query: Query) => call<T.CostHistogram>("/api/mcp-logs/histogram/cost", { query }),
};

export const plugins = {
  list: () => call<{ plugins: T.Plugin[] }>("/api/plugins").then((answer) => answer.plugins),
  create: (input: T.PluginInput & { name: string }) => call<{ plugin: T.Plugin }>("/api/plugins", json("POST", input)),
  update: (name: string, input: T.PluginInput) => call<{ plugin: T.Plugin }>(`/api/plugins/${segment(name)}`, json("PUT", input)),
  remove: (name: string) => call<{ message: string }>(`/api/plugins/${segment(name)}`, json("DELETE")),
};

export const guardrails = {
  list: () => call<{ guardrails: T.Guardrail[] }>("/api/guardrails").then((answer) => answer.guardrails),
  create: (input: T.GuardrailInput & { name: string; checks: T.GuardrailCheck[] }) => call<{ guardrail: T.Guardrail }>("/api/guardrails", json("POST", input)),
  update: (id: string, input: T.GuardrailInput) => call<{ guardrail: T.Guardrail }>(`/api/guardrails/${segment(id)}`, json("PUT", input)),
  remove: (id: string) => call<{ message: string }>(`/api/guardrails/${segment(id)}`, json("DELETE")),
};

export const cache = {
  clearEntry: (cacheId: string) => call<{ message: string }>(`/api/cache/clear/${segment(cacheId)}`, json("DELETE")),
  clearKey: (cacheKey: string) => call<{ deleted: number }>(`/api/cache/clear-by-key/${segment(cacheKey)}`, json("DELETE")),
};

export const agents = {
  list: () => call<{ agents: T.Agent[] }>("/api/agents").then((answer) => answer.agents),
  create: (input: T.AgentInput & { name: string; url: string }) => call<T.Agent>("/api/agents", json("POST", input)),
  update: (name: string, input: T.AgentInput & { url: string }) => call<T.Agent>(`/api/agents/${segment(name)}`, json("PUT", input)),
  remove: (name: string) => call<{ message: string }>(`/api/agents/${segment(name)}`, json("DELETE")),
  tasks: (query: Query) => call<{ tasks: T.AgentTask[] }>("/api/agents/history", { query }).then((answer) => answer.tasks),
};

export const access = {
  authConfig: () => call<T.AuthConfig>("/api/config/auth"),
  updateAuth: (input: T.AuthConfigInput) => call<T.AuthConfig>("/api/config/auth", json("PUT", input)),
  permissions: () => call<{ permissions: T.Permission[] }>("/api/governance/rbac/permissions").then((answer) => answer.permissions),
  roles: () => call<{ roles: T.Role[] }>("/api/governance/rbac/roles").then((answer) => answer.roles),
  createRole: (name: string, permission_ids: number[]) => call<T.Role>("/api/governance/rbac/roles", json("POST", { name, permission_ids })),
  setRolePermissions: (id: number, permission_ids: number[]) => call<{ message: string }>(`/api/governance/rbac/roles/${id}/permissions`, json("PUT", { permission_ids })),
  removeRole: (id: number) => call<{ message: string }>(`/api/governance/rbac/roles/${id}`, json("DELETE")),
  users: () => call<{ users: T.RbacUser[] }>("/api/governance/rbac/users").then((answer) => answer.users),
  createUser: (input: { username: string; role_id: number; password?: string }) => call<T.RbacUser>("/api/governance/rbac/users", json("POST", input)),
  removeUser: (id: string) => call<{ message: string }>(`/api/governance/rbac/users/${segment(id)}`, json("DELETE")),
  apiKeys: () => call<{ api_keys: T.ApiKey[] }>("/api/api-keys").then((answer) => answer.api_keys),
  /** The key's value is in this answer only. */
  createApiKey: (input: { name: string; scopes: number[] }) => call<{ api_key: T.ApiKey; key: string }>("/api/api-keys", json("POST", input)),
  removeApiKey: (id: string) => call<{ message: string }>(`/api/api-keys/${segment(id)}`, json("DELETE")),
  audit: (query: Query) => call<{ audit_logs: T.AuditEvent[] }>("/api/governance/audit-logs", { query }).then((answer) => answer.audit_logs),
  verify: (id: string) => call<{ valid: boolean }>(`/api/governance/audit-logs/${segment(id)}/verify`),
};

export const warp = {
  config: () => call<T.WarpConfig>("/api/warp/config"),
  saveConfig: (input: T.WarpConfigInput) => call<T.WarpConfig>("/api/warp/config", json("PUT", input)),
  conversations: () => call<{ conversations: T.WarpConversation[] }>("/api/warp/conversations").then((answer) => answer.conversations),
  conversation: (id: string) => call<{ messages: T.WarpMessage[] }>(`/api/warp/conversations/${segment(id)}`).then((answer) => answer.messages),
  removeConversation: (id: string) => call<{ message: string }>(`/api/warp/conversations/${segment(id)}`, json("DELETE")),
};

export const actors = {
  machines: () => call<{ machines: T.Machine[] }>("/api/actors/machines").then((answer) => answer.machines),
  counts: () => call<{ counts: Array<{ kind: string; state: string; count: number }> }>("/api/actors/counts").then((answer) => answer.counts),
  list: (query: Query) => call<{ actors: T.ActorSummary[] }>("/api/actors", { query }).then((answer) => answer.actors),
  find: (kind: string, id: string) => call<T.ActorSummary & { transitions: T.ActorTransition[] }>(`/api/actors/${segment(kind)}/${segment(id)}`),
};

export const alerts = {
  rules: () => call<{ rules: T.AlertRule[] }>("/api/alerts/rules").then((answer) => answer.rules),
  createRule: (input: T.AlertRuleInput) => call<T.AlertRule>("/api/alerts/rules", json("POST", input)),
  removeRule: (id: string) => call<{ message: string }>(`/api/alerts/rules/${segment(id)}`, json("DELETE")),
  evaluate: (id: string) => call<{ message: string }>(`/api/alerts/rules/${segment(id)}/evaluate`, json("POST")),
  silence: (id: string, until: string) => call<{ message: string }>(`/api/alerts/rules/${segment(id)}/silence`, json("POST", { until })),
  unsilence: (id: string) => call<{ message: string }>(`/api/alerts/rules/${segment(id)}/silence`, json("DELETE")),
  acknowledge: (id: string) => call<{ message: string }>(`/api/alerts/rules/${segment(id)}/acknowledge`, json("POST")),
  history: (id: string) => call<{ history: T.AlertHistoryEntry[] }>(`/api/alerts/rules/${segment(id)}/history`).then((answer) => answer.history),
  builtins: () => call<{ builtins: T.AlertBuiltin[] }>("/api/alerts/builtins").then((answer) => answer.builtins),
  enableBuiltin: (name: string) => call<T.AlertRule>(`/api/alerts/builtins/${segment(name)}`, json("POST", {})),
  channels: () => call<{ channels: T.AlertChannel[] }>("/api/alerts/channels").then((answer) => answer.channels),
  createChannel: (input: T.AlertChannelInput) => call<T.AlertChannel>("/api/alerts/channels", json("POST", input)),
  removeChannel: (id: string) => call<{ message: string }>(`/api/alerts/channels/${segment(id)}`, json("DELETE")),
  testChannel: (id: string) => call<{ delivered: boolean; detail: string }>(`/api/alerts/channels/${segment(id)}/test`, json("POST")),
  forecast: () => call<{ forecasts: T.BudgetForecast[] }>("/api/alerts/forecast").then((answer) => answer.forecasts),
};
