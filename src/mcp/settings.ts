import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** config.json `mcp`: how the gateway runs its MCP clients, agent mode and per-user flows. */
export const McpSettings = t.Object(
  {
    /** Agent mode: how many rounds of auto-executed tool calls before the reply goes back as is. */
    agent_max_depth: t.Optional(t.Integer({ minimum: 1, maximum: 50 })),
    /** Agent mode on a stream: how often an SSE comment goes out while tools run, so proxies do not close the quiet stream. */
    agent_keepalive_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    tool_execution_timeout_seconds: t.Optional(t.Number({ exclusiveMinimum: 0 })),
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
     * The only commands a stdio client may run, exactly as written in `stdio_config.command`
     * (default none). Config file only: the API cannot widen it.
     */
    stdio_allowed_commands: t.Optional(t.Array(t.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type McpSettings = Static<typeof McpSettings>;

export interface ResolvedMcpSettings {
  agentMaxDepth: number;
  agentKeepAliveMs: number;
  toolTimeoutMs: number;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  healthCheckMs: number;
  flowTtlMs: number;
  publicBaseUrl?: string;
  stdioAllowedCommands: string[];
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
    reconnectInitialMs: settings.reconnect_initial_delay_ms ?? 1000,
    reconnectMaxMs: settings.reconnect_max_delay_ms ?? 60_000,
    healthCheckMs: (settings.health_check_interval_seconds ?? 10) * 1000,
    flowTtlMs: (settings.per_user_flow_ttl_seconds ?? 900) * 1000,
    publicBaseUrl: settings.public_base_url?.replace(/\/+$/, ""),
    stdioAllowedCommands: settings.stdio_allowed_commands ?? [],
  };
}
