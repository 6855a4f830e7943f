import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** config.json `mcp`: how the gateway runs its MCP clients, agent mode and per-user flows. */
export const McpSettings = t.Object(
  {
    /** Agent mode: how many rounds of auto-executed tool calls before the reply goes back as is. */
    agent_max_depth: t.Optional(t.Integer({ minimum: 1, maximum: 50 })),
    /** Agent mode on a stream, and /mcp's SSE streams: how often an SSE comment goes out while nothing else does, so proxies do not close the quiet stream. */
    agent_keepalive_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    /** How long a tool may stay silent; each progress notification it sends starts the wait again. */
    tool_execution_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    /** The longest a tool call may run, progress or not (default 10 times the timeout). */
    tool_execution_max_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    /** Idle MCP sessions on /mcp end after this long (default 1800). */
    session_idle_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    /** At most this many MCP sessions at once on a node (default 10000); beyond, initialize gets 503. */
    max_sessions: t.Optional(t.Integer({ minimum: 1 })),
    /** Items per page of the lists /mcp answers (tools, resources, prompts); a cursor gets the next page. */
    list_page_size: t.Optional(t.Integer({ minimum: 1, maximum: 10_000 })),
    /** Agent mode on /v1/chat: an upstream's sampling request is answered with the request's model ("model", the default) or refused ("refuse"). */
    agent_sampling: t.Optional(t.Union([t.Literal("model"), t.Literal("refuse")])),
    /** Reconnect backoff after an upstream drops: doubling from the initial delay up to the cap. */
    reconnect_initial_delay_ms: t.Optional(t.Integer({ minimum: 1 })),
    reconnect_max_delay_ms: t.Optional(t.Integer({ minimum: 1 })),
    /** How often a connected upstream is pinged to notice a silent drop; 0 disables pings. */
    health_check_interval_seconds: t.Optional(t.Number({ minimum: 0 })),
    /** Lifetime of a per-user header flow and its temp token. */
    per_user_flow_ttl_seconds: t.Optional(t.Integer({ minimum: 1 })),
    /** Base of the authorize_url in mcp_auth_required; default: the origin the request came to. */
    public_base_url: t.Optional(t.String({ pattern: "^https?://" })),
    /**
     * Host header values /mcp answers (a name, or name:port; "*" any). Default: the loopback
     * names when the gateway listens on a loopback address, any host otherwise.
     */
    allowed_hosts: t.Optional(t.Array(t.String({ minLength: 1 }))),
    /** Origins (`https://app.example.com`; "*" any) whose browser pages may call /mcp, besides the gateway's own. */
    allowed_origins: t.Optional(t.Array(t.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type McpSettings = Static<typeof McpSettings>;

export interface ResolvedMcpSettings {
  agentMaxDepth: number;
  agentKeepAliveMs: number;
  toolTimeoutMs: number;
  toolMaxTimeoutMs: number;
  sessionIdleMs: number;
  maxSessions: number;
  listPageSize: number;
  agentSampling: "model" | "refuse";
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  healthCheckMs: number;
  flowTtlMs: number;
  publicBaseUrl?: string;
  allowedHosts?: string[];
  allowedOrigins: string[];
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
    listPageSize: settings.list_page_size ?? 100,
    maxSessions: settings.max_sessions ?? 10_000,
    agentSampling: settings.agent_sampling ?? "model",
    reconnectInitialMs: settings.reconnect_initial_delay_ms ?? 1000,
    reconnectMaxMs: settings.reconnect_max_delay_ms ?? 60_000,
    healthCheckMs: (settings.health_check_interval_seconds ?? 10) * 1000,
    flowTtlMs: (settings.per_user_flow_ttl_seconds ?? 900) * 1000,
    publicBaseUrl: settings.public_base_url?.replace(/\/+$/, ""),
    allowedHosts: settings.allowed_hosts?.map((host) => host.toLowerCase()),
    allowedOrigins: (settings.allowed_origins ?? []).map((origin) => origin.toLowerCase().replace(/\/+$/, "")),
  };
}
