import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CHANGE_CHECK_MS } from "../../db/table-changes";

export const McpSettings = t.Object(
  {
    agent_max_depth: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: "Agent mode: how many rounds of auto-executed tool calls before the reply goes back as is (default 10)." })),
    agent_keepalive_seconds: t.Optional(
      t.Number({ exclusiveMinimum: 0, description: "Agent mode on a stream, and /mcp's SSE streams: how often an SSE comment goes out while nothing else does, so proxies do not close the quiet stream (default 15)." }),
    ),
    tool_execution_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0, description: "How long a tool call may stay silent (default 30); each progress notification it sends starts the wait again." })),
    tool_execution_max_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0, description: "The longest a tool call may run, progress or not (default 10 times the timeout)." })),
    session_idle_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0, description: "Idle MCP sessions on /mcp end after this long (default 1800)." })),
    input_required_timeout_seconds: t.Optional(
      t.Number({ exclusiveMinimum: 0, description: "A 2026-07-28 call that asked its client for input (`input_required`) waits this long for the retry with the answers, then is cancelled upstream (default 300)." }),
    ),
    max_sessions: t.Optional(t.Integer({ minimum: 1, description: "At most this many MCP sessions at once on a node (default 10000); beyond, initialize gets 503." })),
    list_page_size: t.Optional(t.Integer({ minimum: 1, maximum: 10_000, description: "Items per page of the lists /mcp answers (tools, resources, prompts); a cursor gets the next page." })),
    agent_sampling: t.Optional(
      t.Union([t.Literal("model"), t.Literal("refuse")], { description: "Agent mode on /v1/chat: an upstream's sampling request is answered with the request's model (`model`, the default) or refused (`refuse`)." }),
    ),
    reconnect_initial_delay_ms: t.Optional(t.Integer({ minimum: 1, description: "Reconnect backoff after an upstream drops: the first delay, doubling up to `reconnect_max_delay_ms` (default 1000)." })),
    reconnect_max_delay_ms: t.Optional(t.Integer({ minimum: 1, description: "The reconnect backoff's cap (default 60000)." })),
    health_check_interval_seconds: t.Optional(t.Number({ minimum: 0, description: "How often a connected upstream is pinged to notice a silent drop (default 10); 0 disables pings." })),
    change_check_interval_ms: t.Optional(
      t.Integer({ minimum: 10, description: "How often a node looks for the MCP servers and virtual servers another node on the same database added, changed or removed (default 1000)." }),
    ),
    per_user_flow_ttl_seconds: t.Optional(t.Integer({ minimum: 1, description: "Lifetime of a per-user header flow and its temporary token (default 900)." })),
    public_base_url: t.Optional(t.String({ pattern: "^https?://", description: "Base of the authorize_url in mcp_auth_required; default: the origin the request came to." })),
    allowed_hosts: t.Optional(
      t.Array(t.String({ minLength: 1 }), { description: "Host header values /mcp answers (a name, or name:port; `*` any). Default: the loopback names when the gateway listens on a loopback address, any host otherwise." }),
    ),
    allowed_origins: t.Optional(t.Array(t.String({ minLength: 1 }), { description: "Origins (`https://app.example.com`; `*` any) whose browser pages may call /mcp, besides the gateway's own." })),
    tool_search_embedding_model: t.Optional(
      t.String({ minLength: 1, description: "Tool search ranks by meaning with this embedding model (`provider/model`, called through the gateway); without it, by keywords." }),
    ),
    stdio_allowed_commands: t.Optional(
      t.Array(t.String({ minLength: 1 }), { description: "The only commands a stdio client may run, exactly as written in `stdio_config.command` (default none). Config file only: the API cannot widen it." }),
    ),
  },
  { additionalProperties: false, description: "How the gateway runs its MCP clients, agent mode and per-user header flows." },
);
export type McpSettings = Static<typeof McpSettings>;

export interface ResolvedMcpSettings {
  agentMaxDepth: number;
  agentKeepAliveMs: number;
  toolTimeoutMs: number;
  toolMaxTimeoutMs: number;
  sessionIdleMs: number;
  inputRequiredTimeoutMs: number;
  maxSessions: number;
  listPageSize: number;
  agentSampling: "model" | "refuse";
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  healthCheckMs: number;
  changeCheckMs: number;
  flowTtlMs: number;
  publicBaseUrl?: string;
  allowedHosts?: string[];
  allowedOrigins: string[];
  stdioAllowedCommands: string[];
  toolSearchEmbeddingModel?: string;
}

/**
 * The `mcp` section of the config with defaults applied. Read from an unknown-typed field so it
 * works before GatewayConfig declares the section; an invalid section is an error at start.
 */
export function resolveMcpSettings(config: object): ResolvedMcpSettings {
  const raw = (config as { mcp?: unknown }).mcp ?? {};
  const first = Value.Errors(McpSettings, raw).First();
  if (first) throw new Error(`config field 'mcp${first.path.replaceAll("/", ".")}': ${first.message}`);
  const settings = raw as McpSettings;
  return {
    agentMaxDepth: settings.agent_max_depth ?? 10,
    agentKeepAliveMs: (settings.agent_keepalive_seconds ?? 15) * 1000,
    toolTimeoutMs: (settings.tool_execution_timeout_seconds ?? 30) * 1000,
    toolMaxTimeoutMs: (settings.tool_execution_max_timeout_seconds ?? (settings.tool_execution_timeout_seconds ?? 30) * 10) * 1000,
    sessionIdleMs: (settings.session_idle_timeout_seconds ?? 1800) * 1000,
    inputRequiredTimeoutMs: (settings.input_required_timeout_seconds ?? 300) * 1000,
    listPageSize: settings.list_page_size ?? 100,
    maxSessions: settings.max_sessions ?? 10_000,
    agentSampling: settings.agent_sampling ?? "model",
    reconnectInitialMs: settings.reconnect_initial_delay_ms ?? 1000,
    reconnectMaxMs: settings.reconnect_max_delay_ms ?? 60_000,
    healthCheckMs: (settings.health_check_interval_seconds ?? 10) * 1000,
    changeCheckMs: settings.change_check_interval_ms ?? CHANGE_CHECK_MS,
    flowTtlMs: (settings.per_user_flow_ttl_seconds ?? 900) * 1000,
    publicBaseUrl: settings.public_base_url?.replace(/\/+$/, ""),
    allowedHosts: settings.allowed_hosts?.map((host) => host.toLowerCase()),
    allowedOrigins: (settings.allowed_origins ?? []).map((origin) => origin.toLowerCase().replace(/\/+$/, "")),
    stdioAllowedCommands: settings.stdio_allowed_commands ?? [],
    toolSearchEmbeddingModel: settings.tool_search_embedding_model,
  };
}
