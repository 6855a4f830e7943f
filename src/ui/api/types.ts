import type { Attempt } from "../../db/schema/types";

/**
 * What the dashboard reads from and writes to the management API. Plain types, so the browser
 * code needs nothing from the server; contract.ts checks each against the route it names, so a
 * field renamed on the server breaks the typecheck, not the page.
 */

export type Budget = { max_limit: number; reset_duration: string; calendar_aligned?: boolean };
export type RateLimit = { token_max_limit?: number; token_reset_duration?: string; request_max_limit?: number; request_reset_duration?: string };

export interface GatewayErrorBody {
  error: { message: string; type?: string; param?: string };
  extra_fields?: { error_type?: string };
}

export interface AuthProbe {
  is_auth_enabled: boolean;
  has_valid_token: boolean;
}

/** The identity providers the sign-in page offers, and whether the password form is open. */
export interface SignInProviders {
  providers: Array<{ id: string; display_name: string; login_url: string }>;
  password_sign_in: boolean;
}

export interface Me {
  type: string;
  id: string;
  local_admin: boolean;
  edition: "oss" | "enterprise";
  permissions: string[];
}

export interface AuthConfigInput {
  admin_username: string;
  admin_password?: string;
  enabled: boolean;
}

export type { Attempt };

export interface LogSummary {
  id: string;
  parent_request_id: string | null;
  timestamp: string;
  object: string;
  provider: string;
  model: string;
  alias: string | null;
  selected_key_id: string | null;
  virtual_key_id: string | null;
  virtual_key_name: string | null;
  team_id: string | null;
  customer_id: string | null;
  routing_rule_name: string | null;
  status: string;
  status_code: number | null;
  error_type: string | null;
  error_message: string | null;
  stop_reason: string | null;
  cache_hit_type: string | null;
  guardrails: GuardrailVerdict[];
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  cost: number | null;
  latency: number;
  time_to_first_token: number | null;
  stream: boolean;
  /** GATEWAY_REGION of the node that served it; null when that node names none. */
  region: string | null;
  /** Which part of the gateway made the call for itself (`warp`, ...); null for client traffic. */
  internal_caller: string | null;
  attempts: Attempt[];
}

/** What one guardrail check found in a request: never the matched text. */
export interface GuardrailVerdict {
  guardrail: string;
  check: string;
  stage: "input" | "output";
  action: "block" | "redact" | "log";
  matches: number;
}

export interface LogDetail extends LogSummary {
  request_content?: unknown;
  response_content?: string | null;
}

export interface LogPage {
  logs: LogSummary[];
  count: number;
  limit: number;
  offset: number;
}

export interface LogStats {
  total_requests: number;
  error_count: number;
  success_rate: number | null;
  total_tokens: number;
  total_cost: number;
  average_latency: number | null;
  latency_percentiles: Record<string, number | null>;
  has_previous_period: boolean;
  previous: { total_requests: number; error_count: number; total_tokens: number; total_cost: number } | null;
  change: Record<string, number | null> | null;
}

/** GET /api/logs/series: usage per time bucket, a series per model, provider, virtual key or error type. */
export interface LogSeries {
  bucket_size_seconds: number;
  timestamps: string[];
  groups: Array<{ key: string; label: string; requests: number[]; errors: number[]; total_tokens: number[]; total_cost: number[]; cache_hits: number[]; time_to_first_token: Array<number | null> }>;
}

export interface HistogramBucket {
  timestamp: string;
  count: number;
  success: number;
  error: number;
  total_tokens: number;
  total_cost: number;
  average_latency: number;
}

export interface Histogram {
  buckets: HistogramBucket[];
  bucket_size_seconds: number;
}

export interface Ranking {
  provider: string;
  model: string;
  total_requests: number;
  error_count: number;
  total_tokens: number;
  total_cost: number;
  avg_latency: number | null;
  trend: { has_previous_period: boolean; requests_trend: number | null };
}

export interface Rankings {
  rankings: Ranking[];
}

/** GET /api/logs/rankings?group_by=virtual_key: a row per virtual key, the name logged with its latest request. */
export interface VirtualKeyRanking {
  virtual_key_id: string;
  virtual_key_name: string | null;
  total_requests: number;
  error_count: number;
  total_tokens: number;
  total_cost: number;
}

export interface VirtualKeyRankings {
  rankings: VirtualKeyRanking[];
}

export interface ProviderKey {
  id: string;
  name: string;
  enabled: boolean;
  weight: number;
  value?: string;
  models?: string[];
  blacklisted_models?: string[];
  aliases?: Record<string, string>;
  status: string;
  description: string;
}

export interface NetworkConfig {
  base_url?: string;
  extra_headers?: Record<string, string>;
  default_request_timeout_in_seconds?: number;
  max_retries?: number;
}

export interface Provider {
  provider: string;
  keys: ProviderKey[];
  key_optional: boolean;
  network_config: NetworkConfig;
  custom_provider_config?: { base_provider_type: string };
  /** Requests this node sent to open keys while the provider was in panic. */
  panic?: { requests: number; last_at?: string };
}

export interface ProviderKeyInput {
  name?: string;
  value?: string;
  models?: string[];
  blacklisted_models?: string[];
  weight?: number;
  aliases?: Record<string, string>;
  enabled?: boolean;
}

export interface ProviderInput {
  provider: string;
  keys?: ProviderKeyInput[];
  network_config?: NetworkConfig;
  custom_provider_config?: { base_provider_type: string };
}

export interface ProviderConfig {
  provider: string;
  weight?: number;
  allowed_models?: string[];
  key_ids?: string[];
  budgets?: Budget[];
  rate_limit?: RateLimit;
}

export interface VirtualKey {
  id: string;
  name: string;
  description: string;
  is_active: boolean;
  key_prefix: string;
  team_id: string | null;
  customer_id: string | null;
  team: { id: string; name: string } | null;
  customer: { id: string; name: string } | null;
  provider_configs: ProviderConfig[];
  budgets: Budget[];
  rate_limit: RateLimit | null;
  mcp_configs: McpToolGrant[];
  agent_grants: string[];
  session_budgets: SessionBudget | null;
}

/** What each session (agent run) of a virtual key may spend. */
export type SessionBudget = { max_cost?: number; max_tokens?: number };

/** What one session of a virtual key spent, as the node that answered counted it. */
export interface SessionSpent {
  session_id: string;
  cost: number;
  tokens: number;
  requests: number;
  last_request_at: string;
  exceeded: "max_cost" | "max_tokens" | null;
}

/** The tools a virtual key may call on one MCP client: names, `*` for all, empty for none. */
export interface McpToolGrant {
  mcp_client_name: string;
  tools_to_execute?: string[];
}

export interface VirtualKeyInput {
  name?: string;
  description?: string;
  is_active?: boolean;
  team_id?: string | null;
  customer_id?: string | null;
  provider_configs?: ProviderConfig[];
  budgets?: Budget[];
  rate_limit?: RateLimit | null;
  mcp_configs?: McpToolGrant[];
  agent_grants?: string[];
}

export interface Customer {
  id: string;
  name: string;
  budgets: Budget[];
  rate_limit: RateLimit | null;
}

export interface Team extends Customer {
  customer_id: string | null;
  customer: { id: string; name: string } | null;
}

export interface OrgInput {
  name?: string;
  budgets?: Budget[];
  rate_limit?: RateLimit | null;
  customer_id?: string | null;
}

export interface RoutingTarget {
  provider?: string;
  model?: string;
  key_id?: string;
  weight?: number;
}

export type RoutingScope = "global" | "customer" | "team" | "virtual_key";

export interface RoutingRule {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  cel_expression: string;
  targets: RoutingTarget[];
  fallbacks: string[];
  scope: RoutingScope;
  scope_id: string | null;
  priority: number;
}

export interface RoutingRuleInput {
  name: string;
  description?: string;
  enabled?: boolean;
  cel_expression: string;
  targets: RoutingTarget[];
  fallbacks?: string[];
  scope?: RoutingScope;
  scope_id?: string | null;
  priority?: number;
}

export type PriceField = "input_cost_per_token" | "output_cost_per_token" | "cache_read_input_token_cost";

export interface PricingOverride {
  id: string;
  name: string;
  scope_kind: "global" | "provider" | "provider_key" | "virtual_key";
  scope_id: string | null;
  match_type: "exact" | "prefix";
  pattern: string;
  patch: Partial<Record<PriceField, number>>;
}

export interface PricingOverrideInput {
  name: string;
  scope_kind?: PricingOverride["scope_kind"];
  scope_id?: string | null;
  match_type?: PricingOverride["match_type"];
  pattern: string;
  patch: Partial<Record<PriceField, number>>;
}

export interface BudgetUsage {
  level: string;
  owner_id: string;
  owner_name: string;
  max_limit: number;
  reset_duration: string;
  current_usage: number;
  resets_at: string;
}


export type WebhookEvent = "async_job.completed" | "async_job.failed" | "webhook_endpoint.disabled" | "webhook_endpoint.enabled";

export interface WebhookEndpoint {
  id: string;
  name: string;
  url: string;
  events: WebhookEvent[];
  headers: Record<string, string>;
  include_response: boolean;
  allow_private_network: boolean;
  disabled: boolean;
  max_retries: number;
  retry_backoff_initial_seconds: number;
  attempt_timeout_seconds: number;
  /** Its lifecycle: active, failing, disabled_automatically or disabled. */
  state: string;
  disabled_reason: string | null;
  consecutive_failures: number;
  last_success_at?: string;
  last_failure_at?: string;
}

export interface WebhookEndpointInput {
  name?: string;
  url?: string;
  events?: WebhookEvent[];
  headers?: Record<string, string>;
  include_response?: boolean;
  allow_private_network?: boolean;
  disabled?: boolean;
  max_retries?: number;
}

export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  latency_ms: number | null;
  status_code: number | null;
  outcome: string;
  error: string | null;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  endpoint_id: string;
  event: string;
  job_id: string | null;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  redelivery_of: string | null;
  created_at: string;
  attempts: DeliveryAttempt[];
}

export type AsyncJobStatus = "pending" | "processing" | "completed" | "failed" | "expired";

export interface AsyncJob {
  id: string;
  status: AsyncJobStatus;
  request_type: string;
  /** The path after /v1/async/ it was submitted on, or the provider mount path. */
  route: string;
  webhook?: string;
  created_at: string;
  expires_at: string;
  started_at?: string;
  completed_at?: string;
  status_code?: number;
  result?: unknown;
  error?: unknown;
}

export interface AsyncJobPage {
  jobs: AsyncJob[];
  count: number;
  total_count: number;
  limit: number;
  offset: number;
}

export type McpConnectionType = "http" | "sse" | "stdio";

export interface McpClient {
  id: string;
  name: string;
  connection_type: McpConnectionType;
  connection_string: string | null;
  stdio_config: { command: string; args: string[]; envs: Record<string, string> } | null;
  auth_type: string;
  headers: Record<string, string>;
  per_user_header_keys: string[];
  /** auth_type oauth: the client and the state of its connection to the authorization server. */
  oauth: { client_id: string | null; scope: string | null; per_user: boolean; connection: McpOAuthConnection | null } | null;
  tools_to_execute: string[];
  state: string;
  last_error: string | null;
  tools: Array<{ name: string; description: string }>;
  resources: Array<{ uri: string; name: string; description: string; mime_type: string | null }>;
  resource_templates: Array<{ uri_template: string; name: string; description: string; mime_type: string | null }>;
  prompts: Array<{ name: string; description: string; arguments: Array<{ name: string; description: string; required: boolean }> }>;
}

export interface McpOAuthConnection {
  state: "needs_consent" | "connected" | "refresh_failed";
  last_error: string | null;
  connected_at: string | null;
  access_token_expires_at: string | null;
}

/** A per-user header flow waiting for a caller's values. */
export interface McpPerUserFlow {
  id: string;
  flow_mode: "virtual_key" | "session";
  /** What the flow waits for: header values, or the caller's consent at the authorization server. */
  kind: "headers" | "oauth";
  status: string;
  mcp_client: { id: string; name: string };
  virtual_key_id?: string;
  required_header_keys: string[];
  expires_at: string;
  created_at: string;
}

export interface McpClientInput {
  name?: string;
  connection_type?: McpConnectionType;
  connection_string?: string;
  stdio_config?: { command: string; args?: string[] };
  auth_type?: "none" | "headers" | "per_user_headers" | "oauth";
  headers?: Record<string, string>;
  tools_to_execute?: string[];
}

export interface McpLog {
  id: string;
  timestamp: string;
  tool_name: string;
  server_label: string;
  status: string;
  arguments: unknown;
  result: string | null;
  error_message: string | null;
  latency: number | null;
  cost: number | null;
  virtual_key_name: string | null;
}

export interface CostHistogram {
  buckets: Array<{ timestamp: string; total_cost: number }>;
  bucket_size_seconds: number;
}

export interface Plugin {
  name: string;
  enabled: boolean;
  config: Record<string, unknown>;
  isCustom: boolean;
  path: string;
  /** Custom plugins: lower runs earlier among them. */
  order?: number;
  status: { status: "active" | "disabled" | "error"; logs: string[]; types: string[] };
}

export interface PluginInput {
  path?: string;
  enabled?: boolean;
  config?: Record<string, unknown>;
  order?: number;
}

export interface Agent {
  name: string;
  url: string;
  description: string | null;
  enabled: boolean;
  headers: Record<string, string>;
  gateway_path: string;
  agent_card: unknown;
  card_fetched_at: string | null;
  card_error: string | null;
}

export interface AgentInput {
  url?: string;
  description?: string;
  enabled?: boolean;
  headers?: Record<string, string>;
}

export interface AgentTask {
  agent: string;
  task_id: string;
  context_id: string | null;
  state: string;
  live: boolean;
  virtual_key_id: string | null;
  transitions: Array<{ state: string; at: string }>;
  created_at: string;
  updated_at: string;
}

export interface AuthConfig {
  admin_username: string;
  enabled: boolean;
  is_configured: boolean;
}

export interface Permission {
  id: number;
  name: string;
  resource: string;
  operation: string;
}

export interface Role {
  id: number;
  name: string;
  description: string | null;
  is_builtin: boolean;
  permission_ids: number[];
}

export interface RbacUser {
  id: string;
  username: string;
  name: string | null;
  role_id: number;
  role: string;
  has_password: boolean;
}

export interface ApiKey {
  id: string;
  name: string;
  description: string | null;
  scopes: number[];
  key_prefix: string;
  expires_at: string | null;
  created_at: string;
}

export interface AuditEvent {
  id: string;
  timestamp: string;
  initiator: { type: string; id: string };
  action: string;
  target: { type: string; id: string | null };
  outcome: string;
  method: string;
  path: string;
  summary: unknown;
}

export interface WarpConfig {
  configured: boolean;
  enabled: boolean;
  provider: string;
  model: string;
  max_iterations: number;
  system_prompt_suffix: string;
  embedding_provider: string;
  embedding_model: string;
  embedding_dimension: number;
}

export interface WarpConfigInput {
  enabled?: boolean;
  provider?: string;
  model?: string;
  max_iterations?: number;
  system_prompt_suffix?: string;
  embedding_provider?: string;
  embedding_model?: string;
  embedding_dimension?: number;
}

export interface WarpChatInput {
  message: string;
  conversation_id?: string;
}

export interface WarpMessage {
  role: "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface WarpConversation {
  id: string;
  title: string;
  updated_at: string;
}

/** The server-sent events of POST /api/warp/chat. */
export interface WarpChatEvents {
  start: { conversation_id: string; provider: string; model: string };
  delta: { content: string };
  tool_call_start: { id: string; name: string; arguments: string };
  tool_call_end: { id: string; name: string; ok: boolean; result?: unknown; error?: string };
  error: { error?: { message?: string } };
  done: { conversation_id: string; finish_reason: string };
}

export interface MachineState {
  id: string;
  key: string;
  type: "atomic" | "compound" | "parallel" | "final" | "history";
  transitions: Array<{ event: string; trigger: string; targets: string[]; delay?: number | string }>;
  states: Record<string, MachineState>;
}

export interface Machine {
  kind: string;
  id: string;
  root: MachineState;
}

export interface ActorSummary {
  kind: string;
  id: string;
  state_path: string;
  status: string;
  updated_at: string;
}

export interface ActorTransition {
  seq: number;
  from_path: string | null;
  event: string;
  to_path: string;
  at: string;
  node: string;
}

export type GuardrailScope = "global" | "virtual_key" | "team" | "customer" | "routing_rule";
export type GuardrailCheckType = "email" | "phone" | "payment_card" | "iban" | "national_id" | "ip_address" | "api_key" | "private_key" | "jwt" | "regex" | "word_list" | "json_schema" | "length" | "language" | "model" | "http";
export type GuardrailStage = "input" | "output" | "both";
export type GuardrailAction = "block" | "redact" | "log";

/** The fields of a check the page edits; a check of another type keeps its other fields as they came. */
export interface GuardrailCheck {
  type: GuardrailCheckType;
  name?: string;
  stage?: GuardrailStage;
  action?: GuardrailAction;
  pattern?: string;
  label?: string;
  case_sensitive?: boolean;
  words?: string[];
}

export interface Guardrail {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  scope: GuardrailScope;
  scope_id: string | null;
  restore_redacted: boolean;
  checks: GuardrailCheck[];
  created_at: string;
  updated_at: string;
}

export interface GuardrailInput {
  name?: string;
  description?: string;
  enabled?: boolean;
  scope?: GuardrailScope;
  scope_id?: string;
  restore_redacted?: boolean;
  checks?: GuardrailCheck[];
}

// Alerts (/api/alerts).

export type AlertState = "ok" | "pending" | "firing" | "resolved";
export type AlertSeverity = "info" | "warning" | "critical";
export type AlertScope = "global" | "provider" | "model" | "virtual_key" | "team" | "customer";
export type AlertChannelType = "slack" | "teams" | "pagerduty" | "email" | "webhook";

export interface AlertRule {
  id: string;
  name: string;
  condition: string;
  window: string;
  interval_seconds: number;
  for_seconds: number;
  cooldown_seconds: number;
  severity: AlertSeverity;
  scope: AlertScope;
  scope_id: string | null;
  channel_ids: string[];
  enabled: boolean;
  state: AlertState;
  acknowledged: boolean;
  state_since: string | null;
  last_evaluated_at: string | null;
  figures: Record<string, number>;
  silenced_until: string | null;
  acknowledged_by: string | null;
  logs_url: string;
}

export interface AlertRuleInput {
  name: string;
  condition: string;
  window?: string;
  interval_seconds?: number;
  for_seconds?: number;
  severity?: AlertSeverity;
  scope?: AlertScope;
  scope_id?: string | null;
  channel_ids?: string[];
}

export interface AlertHistoryEntry {
  at: string;
  from: string | null;
  to: string;
  figures: Record<string, number> | null;
  note: string | null;
}

export interface AlertChannel {
  id: string;
  name: string;
  type: AlertChannelType;
  target: string;
}

export interface AlertChannelInput {
  name: string;
  type: AlertChannelType;
  webhook_url?: string;
  routing_key?: string;
  events_url?: string;
  smtp?: { host: string; port: number; username?: string; password?: string; from: string; to: string[] };
  endpoint_id?: string;
  allow_private_network?: boolean;
}

export interface AlertBuiltin {
  name: string;
  description: string;
}

export interface BudgetForecast {
  level: string;
  owner_id: string;
  owner_name: string;
  max_limit: number;
  reset_duration: string;
  current_usage: number;
  resets_at: string;
  short_window: { spend_per_hour: number; exhausted_at: string | null };
  long_window: { spend_per_hour: number; exhausted_at: string | null };
  hours_left: number | null;
}
