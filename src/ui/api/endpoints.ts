import { answered, api, filters, type Query } from "./client";
import type * as T from "./types";

const setupHeader = (token: string) => ({ "x-gateway-setup-token": token });

export const session = {
  probe: () => answered(api.GET("/api/session/is-auth-enabled"), { expect401: true }),
  signInProviders: () => answered(api.GET("/api/session/oidc/providers"), { expect401: true }),
  me: () => answered(api.GET("/api/session/me")),
  setup: (token: string) => answered(api.POST("/api/session/setup", { headers: setupHeader(token) }), { expect401: true }),
  login: (username: string, password: string) => answered(api.POST("/api/session/login", { body: { username, password } }), { expect401: true }),
  logout: () => answered(api.POST("/api/session/logout"), { expect401: true }),
  createAdmin: (input: T.AuthConfigInput) => answered(api.PUT("/api/config/auth", { body: input })),
};

export const logSinks = {
  list: () => answered(api.GET("/api/log-sinks")),
  create: (input: T.LogSinkInput) => answered(api.POST("/api/log-sinks", { body: input })),
  update: (name: string, input: T.LogSinkChange) => answered(api.PUT("/api/log-sinks/{name}", { params: { path: { name } }, body: input })),
  remove: (name: string) => answered(api.DELETE("/api/log-sinks/{name}", { params: { path: { name } } })),
};

export const logs = {
  list: (query: Query, signal?: AbortSignal) => answered(api.GET("/api/logs", { params: { query: filters(query) }, signal })),
  get: (id: string) => answered(api.GET("/api/logs/{id}", { params: { path: { id } } })),
  conversation: (id: string) => answered(api.GET("/api/logs/conversations/{id}", { params: { path: { id } } })),
  stats: (query: Query) => answered(api.GET("/api/logs/stats", { params: { query: filters(query) } })),
  histogram: (query: Query) => answered(api.GET("/api/logs/histogram", { params: { query: filters(query) } })),
  rankings: (query: Query) => answered(api.GET("/api/logs/rankings", { params: { query: filters(query) } })) as Promise<T.Rankings>,
  series: (query: Query) => answered(api.GET("/api/logs/series", { params: { query: filters(query) } })),
  metadataKeys: () => answered(api.GET("/api/logs/metadata-keys")).then((answer) => answer.keys),
  virtualKeyRankings: (query: Query) => answered(api.GET("/api/logs/rankings", { params: { query: filters({ ...query, group_by: "virtual_key" }) } })) as Promise<T.VirtualKeyRankings>,
  remove: (ids: string[]) => answered(api.DELETE("/api/logs", { body: { ids } })),
};

const provider = (name: string) => ({ params: { path: { provider: name } } });
const providerKey = (name: string, id: string) => ({ params: { path: { provider: name, key_id: id } } });

export const providers = {
  list: () => answered(api.GET("/api/providers")),
  create: (input: T.ProviderInput) => answered(api.POST("/api/providers", { body: input })),
  update: (name: string, input: Omit<T.ProviderInput, "provider">) => answered(api.PUT("/api/providers/{provider}", { ...provider(name), body: input })),
  remove: (name: string) => answered(api.DELETE("/api/providers/{provider}", provider(name))),
  addKey: (name: string, input: T.ProviderKeyInput) => answered(api.POST("/api/providers/{provider}/keys", { ...provider(name), body: input })),
  updateKey: (name: string, id: string, input: T.ProviderKeyInput) => answered(api.PUT("/api/providers/{provider}/keys/{key_id}", { ...providerKey(name, id), body: input })),
  removeKey: (name: string, id: string) => answered(api.DELETE("/api/providers/{provider}/keys/{key_id}", providerKey(name, id))),
  testKey: (name: string, id: string) => answered(api.POST("/api/providers/{provider}/keys/{key_id}/refresh-models", providerKey(name, id))),
};

const byId = (id: string) => ({ params: { path: { id } } });

export const virtualKeys = {
  list: () => answered(api.GET("/api/governance/virtual-keys")).then((page) => page.virtual_keys),
  /** The value is in this answer only: the key is shown once. */
  create: (input: T.VirtualKeyInput & { name: string }) => answered(api.POST("/api/governance/virtual-keys", { body: input })).then((answer) => answer.virtual_key),
  update: (id: string, input: T.VirtualKeyInput) => answered(api.PUT("/api/governance/virtual-keys/{id}", { ...byId(id), body: input })).then((answer) => answer.virtual_key),
  remove: (id: string) => answered(api.DELETE("/api/governance/virtual-keys/{id}", byId(id))),
  /** A new value, in this answer only; the old one stops working. */
  rotate: (id: string) => answered(api.POST("/api/governance/virtual-keys/{id}/rotate", byId(id))).then((answer) => answer.virtual_key),
  /** What each of the key's sessions spent against its `session_budgets`, most recent first. */
  sessions: (id: string) => answered(api.GET("/api/governance/virtual-keys/{id}/sessions", byId(id))).then((answer) => answer.sessions),
};

const team = (id: string) => ({ params: { path: { team_id: id } } });

export const teams = {
  list: () => answered(api.GET("/api/governance/teams")).then((page) => page.teams),
  create: (input: T.OrgInput & { name: string }) => answered(api.POST("/api/governance/teams", { body: input })).then((answer) => answer.team),
  update: (id: string, input: T.OrgInput) => answered(api.PUT("/api/governance/teams/{team_id}", { ...team(id), body: input })).then((answer) => answer.team),
  remove: (id: string) => answered(api.DELETE("/api/governance/teams/{team_id}", team(id))),
};

export const customers = {
  list: () => answered(api.GET("/api/governance/customers")).then((page) => page.customers),
  create: (input: Omit<T.OrgInput, "customer_id"> & { name: string }) => answered(api.POST("/api/governance/customers", { body: input })).then((answer) => answer.customer),
  update: (id: string, input: Omit<T.OrgInput, "customer_id">) => answered(api.PUT("/api/governance/customers/{id}", { ...byId(id), body: input })).then((answer) => answer.customer),
  remove: (id: string) => answered(api.DELETE("/api/governance/customers/{id}", byId(id))),
};

export const routingRules = {
  list: () => answered(api.GET("/api/governance/routing-rules")).then((page) => page.rules),
  create: (input: T.RoutingRuleInput) => answered(api.POST("/api/governance/routing-rules", { body: input })).then((answer) => answer.rule),
  update: (id: string, input: Partial<T.RoutingRuleInput>) => answered(api.PUT("/api/governance/routing-rules/{id}", { ...byId(id), body: input })).then((answer) => answer.rule),
  remove: (id: string) => answered(api.DELETE("/api/governance/routing-rules/{id}", byId(id))),
};

export const pricingOverrides = {
  list: () => answered(api.GET("/api/governance/pricing-overrides")).then((page) => page.pricing_overrides),
  create: (input: T.PricingOverrideInput) => answered(api.POST("/api/governance/pricing-overrides", { body: input })).then((answer) => answer.pricing_override),
  update: (id: string, input: Partial<T.PricingOverrideInput>) => answered(api.PUT("/api/governance/pricing-overrides/{id}", { ...byId(id), body: input })).then((answer) => answer.pricing_override),
  remove: (id: string) => answered(api.DELETE("/api/governance/pricing-overrides/{id}", byId(id))),
};

export const usage = {
  budgets: () => answered(api.GET("/api/governance/budgets")).then((answer) => answer.budgets),
  rateLimits: () => answered(api.GET("/api/governance/rate-limits")).then((answer) => answer.rate_limits),
};

export const webhooks = {
  list: () => answered(api.GET("/api/webhooks")).then((answer) => answer.webhooks),
  /** The signing secret is in this answer only. */
  create: (input: T.WebhookEndpointInput & { name: string; url: string }) => answered(api.POST("/api/webhooks", { body: input })),
  update: (id: string, input: T.WebhookEndpointInput) => answered(api.PUT("/api/webhooks/{id}", { ...byId(id), body: input })),
  remove: (id: string) => answered(api.DELETE("/api/webhooks/{id}", byId(id))),
  rotateSecret: (id: string) => answered(api.POST("/api/webhooks/{id}/rotate-secret", byId(id))),
  test: (id: string) => answered(api.POST("/api/webhooks/{id}/test", byId(id))),
  deliveries: (id: string) => answered(api.GET("/api/webhooks/{id}/deliveries", { params: { path: { id }, query: { limit: 50 } } })).then((answer) => answer.deliveries),
  redeliver: (deliveryId: string) => answered(api.POST("/api/webhooks/deliveries/{id}/redeliver", byId(deliveryId))),
};

export const asyncJobs = {
  list: (query: Query) => answered(api.GET("/api/async-jobs", { params: { query: filters(query) } })),
};

export const mcp = {
  clients: () => answered(api.GET("/api/mcp/clients")).then((answer) => answer.clients),
  create: (input: T.McpClientInput & { name: string; connection_type: T.McpConnectionType }) => answered(api.POST("/api/mcp/client", { body: input })),
  update: (id: string, input: T.McpClientInput) => answered(api.PUT("/api/mcp/client/{id}", { ...byId(id), body: input })),
  remove: (id: string) => answered(api.DELETE("/api/mcp/client/{id}", byId(id))),
  reconnect: (id: string) => answered(api.POST("/api/mcp/client/{id}/reconnect", byId(id))),
  openapiOperations: (source: { connection_string?: string; document?: string }) => answered(api.POST("/api/mcp/openapi/operations", { body: source })).then((answer) => answer.operations),
  oauthConnect: (id: string) => answered(api.POST("/api/mcp/client/{id}/oauth/connect", byId(id))),
  perUserFlows: (state: string) => answered(api.GET("/api/mcp/per-user-headers/flows", { params: { query: filters({ state }) } })).then((answer) => answer.flows),
  logs: (query: Query) => answered(api.GET("/api/mcp-logs", { params: { query: filters(query) } })).then((answer) => answer.logs),
  costHistogram: (query: Query) => answered(api.GET("/api/mcp-logs/histogram/cost", { params: { query: filters(query) } })),
};

export const virtualServers = {
  list: () => answered(api.GET("/api/mcp/virtual-servers")).then((answer) => answer.virtual_servers),
  create: (input: T.VirtualServerInput) => answered(api.POST("/api/mcp/virtual-servers", { body: input })),
  update: (id: string, input: T.VirtualServerInput) => answered(api.PUT("/api/mcp/virtual-servers/{id}", { ...byId(id), body: input })),
  remove: (id: string) => answered(api.DELETE("/api/mcp/virtual-servers/{id}", byId(id))),
  /** How many tool calls came through the server, and what they cost, from the MCP log. */
  usage: async (slug: string) => {
    const [page, histogram] = await Promise.all([
      answered(api.GET("/api/mcp-logs", { params: { query: filters({ virtual_servers: slug, limit: 1 }) } })),
      answered(api.GET("/api/mcp-logs/histogram/cost", { params: { query: filters({ virtual_servers: slug }) } })),
    ]);
    return { calls: page.total, cost: histogram.buckets.reduce((sum, bucket) => sum + bucket.total_cost, 0) };
  },
};

const byName = (name: string) => ({ params: { path: { name } } });

export const plugins = {
  list: () => answered(api.GET("/api/plugins")).then((answer) => answer.plugins),
  create: (input: T.PluginInput & { name: string }) => answered(api.POST("/api/plugins", { body: input })),
  update: (name: string, input: T.PluginInput) => answered(api.PUT("/api/plugins/{name}", { ...byName(name), body: input })),
  remove: (name: string) => answered(api.DELETE("/api/plugins/{name}", byName(name))),
};

export const guardrails = {
  list: () => answered(api.GET("/api/guardrails")).then((answer) => answer.guardrails),
  create: (input: T.GuardrailInput & { name: string; checks: T.GuardrailCheck[] }) => answered(api.POST("/api/guardrails", { body: input })),
  update: (id: string, input: T.GuardrailInput) => answered(api.PUT("/api/guardrails/{id}", { ...byId(id), body: input })),
  remove: (id: string) => answered(api.DELETE("/api/guardrails/{id}", byId(id))),
};

export const cache = {
  clearEntry: (cacheId: string) => answered(api.DELETE("/api/cache/clear/{cacheId}", { params: { path: { cacheId } } })),
  clearKey: (cacheKey: string) => answered(api.DELETE("/api/cache/clear-by-key/{cacheKey}", { params: { path: { cacheKey } } })),
};

export const agents = {
  list: () => answered(api.GET("/api/agents")).then((answer) => answer.agents),
  create: (input: T.AgentInput & { name: string; url: string }) => answered(api.POST("/api/agents", { body: input })),
  update: (name: string, input: T.AgentInput & { url: string }) => answered(api.PUT("/api/agents/{name}", { ...byName(name), body: input })),
  remove: (name: string) => answered(api.DELETE("/api/agents/{name}", byName(name))),
  tasks: (query: Query) => answered(api.GET("/api/agents/history", { params: { query: filters(query) } })).then((answer) => answer.tasks),
};

const role = (id: number) => ({ params: { path: { role_id: String(id) } } });

export const access = {
  authConfig: () => answered(api.GET("/api/config/auth")),
  updateAuth: (input: T.AuthConfigInput) => answered(api.PUT("/api/config/auth", { body: input })),
  permissions: () => answered(api.GET("/api/governance/rbac/permissions")).then((answer) => answer.permissions),
  roles: () => answered(api.GET("/api/governance/rbac/roles")).then((answer) => answer.roles),
  createRole: (name: string, permission_ids: number[]) => answered(api.POST("/api/governance/rbac/roles", { body: { name, permission_ids } })),
  setRolePermissions: (id: number, permission_ids: number[]) => answered(api.PUT("/api/governance/rbac/roles/{role_id}/permissions", { ...role(id), body: { permission_ids } })),
  removeRole: (id: number) => answered(api.DELETE("/api/governance/rbac/roles/{role_id}", role(id))),
  users: () => answered(api.GET("/api/governance/rbac/users")).then((answer) => answer.users),
  createUser: (input: { username: string; role_id: number; password?: string }) => answered(api.POST("/api/governance/rbac/users", { body: input })),
  removeUser: (id: string) => answered(api.DELETE("/api/governance/rbac/users/{user_id}", { params: { path: { user_id: id } } })),
  apiKeys: () => answered(api.GET("/api/api-keys")).then((answer) => answer.api_keys),
  /** The key's value is in this answer only. */
  createApiKey: (input: { name: string; scopes: number[] }) => answered(api.POST("/api/api-keys", { body: input })),
  removeApiKey: (id: string) => answered(api.DELETE("/api/api-keys/{id}", byId(id))),
  audit: (query: Query) => answered(api.GET("/api/governance/audit-logs", { params: { query: filters(query) } })).then((answer) => answer.audit_logs),
  verify: (id: string) => answered(api.GET("/api/governance/audit-logs/{id}/verify", byId(id))),
};

export const warp = {
  config: () => answered(api.GET("/api/warp/config")),
  saveConfig: (input: T.WarpConfigInput) => answered(api.PUT("/api/warp/config", { body: input })),
  conversations: () => answered(api.GET("/api/warp/conversations")).then((answer) => answer.conversations),
  conversation: (id: string) => answered(api.GET("/api/warp/conversations/{id}", byId(id))).then((answer) => answer.messages),
  removeConversation: (id: string) => answered(api.DELETE("/api/warp/conversations/{id}", byId(id))),
};

const actor = (kind: string, id: string) => ({ params: { path: { kind, id } } });

export const actors = {
  machines: () => answered(api.GET("/api/actors/machines")).then((answer) => answer.machines as T.Machine[]),
  counts: () => answered(api.GET("/api/actors/counts")).then((answer) => answer.counts),
  list: (query: Query) => answered(api.GET("/api/actors", { params: { query: filters(query) } })).then((answer) => answer.actors),
  find: (kind: string, id: string) => answered(api.GET("/api/actors/{kind}/{id}", actor(kind, id))),
};

export const alerts = {
  rules: () => answered(api.GET("/api/alerts/rules")).then((answer) => answer.rules),
  createRule: (input: T.AlertRuleInput) => answered(api.POST("/api/alerts/rules", { body: input })),
  removeRule: (id: string) => answered(api.DELETE("/api/alerts/rules/{id}", byId(id))),
  evaluate: (id: string) => answered(api.POST("/api/alerts/rules/{id}/evaluate", byId(id))),
  silence: (id: string, until: string) => answered(api.POST("/api/alerts/rules/{id}/silence", { ...byId(id), body: { until } })),
  unsilence: (id: string) => answered(api.DELETE("/api/alerts/rules/{id}/silence", byId(id))),
  acknowledge: (id: string) => answered(api.POST("/api/alerts/rules/{id}/acknowledge", byId(id))),
  history: (id: string) => answered(api.GET("/api/alerts/rules/{id}/history", byId(id))).then((answer) => answer.history),
  builtins: () => answered(api.GET("/api/alerts/builtins")).then((answer) => answer.builtins),
  enableBuiltin: (name: string) => answered(api.POST("/api/alerts/builtins/{name}", { params: { path: { name } }, body: {} })),
  channels: () => answered(api.GET("/api/alerts/channels")).then((answer) => answer.channels),
  createChannel: (input: T.AlertChannelInput) => answered(api.POST("/api/alerts/channels", { body: input })),
  removeChannel: (id: string) => answered(api.DELETE("/api/alerts/channels/{id}", byId(id))),
  testChannel: (id: string) => answered(api.POST("/api/alerts/channels/{id}/test", byId(id))),
  forecast: () => answered(api.GET("/api/alerts/forecast")).then((answer) => answer.forecasts),
};

export const prompts = {
  list: () => answered(api.GET("/api/prompts")).then((answer) => answer.prompts),
  get: (name: string) => answered(api.GET("/api/prompts/{name}", byName(name))),
  create: (input: T.PromptCreateInput) => answered(api.POST("/api/prompts", { body: input })),
  addVersion: (name: string, input: T.PromptVersionInput) => answered(api.POST("/api/prompts/{name}/versions", { ...byName(name), body: input })).then((answer) => answer.version),
  remove: (name: string) => answered(api.DELETE("/api/prompts/{name}", byName(name))),
  moveLabel: (name: string, label: string, version: number) => answered(api.PUT("/api/prompts/{name}/labels/{label}", { params: { path: { name, label } }, body: { version } })),
  render: (name: string, fields: T.PromptRunFields) => answered(api.POST("/api/prompts/{name}/render", { ...byName(name), body: fields })),
  /** The file as read from disk: YAML or JSON, sent as it is. */
  importFile: (text: string) => answered(api.POST("/api/prompts/import", { body: text, bodySerializer: (body: string) => body, headers: { "content-type": "application/yaml" } })),
  usage: (prompt: string) => answered(api.GET("/api/logs/prompt-versions", { params: { query: { prompt } } })).then((answer) => answer.versions),
};
