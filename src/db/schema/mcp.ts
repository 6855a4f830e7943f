import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { McpToolSearch } from "./types";

export interface StdioLaunch {
  command: string;
  args: string[];
}

/** An openapi client's document (inline; else fetched from connection_string) and the operations it keeps; its credentials are sealed. */
export interface OpenApiSource {
  document?: string;
  baseUrl?: string;
  selection: { includeTags: string[]; includeOperations: string[]; excludeTags: string[]; excludeOperations: string[] };
}

/**
 * An upstream MCP server. Header values and stdio environment variables are secrets: they live
 * sealed in `sealed_secrets` (JSON of `{headers, envs, oauth, openapiCredentials}`).
 */
export const mcpClients = sqliteTable("mcp_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  connectionType: text("connection_type", { enum: ["http", "sse", "stdio", "openapi"] }).notNull(),
  connectionString: text("connection_string"),
  /**
   * Whoever last wrote its address may point the gateway at loopback and private addresses (the
   * admin, or anyone under network.allow_private_addresses): every connection checks it.
   * Rows from before the outbound address policy keep their reach.
   */
  privateNetworkAllowed: integer("private_network_allowed", { mode: "boolean" }).notNull().default(true),
  stdioLaunch: text("stdio_launch", { mode: "json" }).$type<StdioLaunch>(),
  /** http clients: the MCP revision to speak upstream, or `auto` (server/discover decides at each connect). */
  protocolVersion: text("protocol_version", { enum: ["auto", "2026-07-28", "2025-11-25"] }).notNull().default("auto"),
  openapiSource: text("openapi_source", { mode: "json" }).$type<OpenApiSource>(),
  authType: text("auth_type", { enum: ["none", "headers", "per_user_headers", "oauth"] }).notNull(),
  sealedSecrets: text("sealed_secrets").notNull(),
  perUserHeaderKeys: text("per_user_header_keys", { mode: "json" }).$type<string[]>().notNull(),
  toolsToExecute: text("tools_to_execute", { mode: "json" }).$type<string[]>().notNull(),
  toolsToAutoExecute: text("tools_to_auto_execute", { mode: "json" }).$type<string[]>().notNull(),
  /** USD per call, by tool name. */
  toolPricing: text("tool_pricing", { mode: "json" }).$type<Record<string, number>>().notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** One MCP tool call, written as `processing` when it starts and completed when it ends. */
export const mcpToolLogs = sqliteTable(
  "mcp_tool_logs",
  {
    id: text("id").primaryKey(),
    timestamp: integer("timestamp", { mode: "timestamp_ms" }).notNull(),
    /** The chat request whose reply asked for the call; null for direct calls. */
    llmRequestId: text("llm_request_id"),
    toolName: text("tool_name").notNull(),
    serverLabel: text("server_label").notNull(),
    mcpClientId: text("mcp_client_id"),
    /** `tool_execute`, `agent` or `mcp_server`: which door the call came through. */
    source: text("source").notNull(),
    status: text("status", { enum: ["processing", "success", "error"] }).notNull(),
    /** JSON arguments; null when content logging is off. */
    arguments: text("arguments"),
    /** The result text; null when content logging is off or there was none. */
    result: text("result"),
    errorMessage: text("error_message"),
    /** JSON `{ progress, messages, cancelled }`: what was relayed during a call from an MCP caller; null for other calls. */
    notifications: text("notifications"),
    latencyMs: real("latency_ms"),
    cost: real("cost"),
    virtualKeyId: text("virtual_key_id"),
    virtualKeyName: text("virtual_key_name"),
    /** GATEWAY_REGION of the node that made the call; null when it names none. */
    region: text("region"),
    /** The slug of the virtual server the call came through; null for every other door. */
    virtualServer: text("virtual_server"),
    /** Raised past every other row's by each write (its start, its end): what the live feed reads new changes by. */
    changeSeq: integer("change_seq").notNull().default(0),
  },
  (table) => [
    index("mcp_tool_logs_timestamp_idx").on(table.timestamp),
    index("mcp_tool_logs_llm_request_idx").on(table.llmRequestId),
    index("mcp_tool_logs_change_idx").on(table.changeSeq),
    index("mcp_tool_logs_virtual_server_idx").on(table.virtualServer, table.timestamp),
  ],
);

/** Who a per-user credential or flow belongs to: a virtual key, or an opaque MCP session id. */
export type IdentityMode = "virtual_key" | "session";

/** The (mode, identity, client) triple a credential or a flow belongs to; a fresh set per table. */
const perUserOwner = () => ({
  mode: text("mode", { enum: ["virtual_key", "session"] }).notNull(),
  identity: text("identity").notNull(),
  mcpClientId: text("mcp_client_id")
    .notNull()
    .references(() => mcpClients.id, { onDelete: "cascade" }),
});

/** Each identity's own header values for a per_user_headers client, sealed. */
export const mcpPerUserCredentials = sqliteTable(
  "mcp_per_user_credentials",
  {
    id: text("id").primaryKey(),
    ...perUserOwner(),
    sealedValues: text("sealed_values").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [uniqueIndex("mcp_per_user_credentials_owner_idx").on(table.mode, table.identity, table.mcpClientId)],
);

/**
 * A per-user header submission flow (spec 4.13), bound to (mode, identity, client) and to a temp
 * token kept as a hash. Its per-user-header-flow actor's snapshot lives in actor_snapshots;
 * `state` mirrors the actor. Deleted when consumed; kept as `expired` so a late submission gets 410.
 */
export const mcpPerUserHeaderFlows = sqliteTable(
  "mcp_per_user_header_flows",
  {
    id: text("id").primaryKey(),
    ...perUserOwner(),
    tempTokenHash: text("temp_token_hash").notNull(),
    state: text("state").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("mcp_per_user_header_flows_owner_idx").on(table.mode, table.identity, table.mcpClientId)],
);

/**
 * The OAuth 2.1 connections of `oauth` MCP clients: one per client (owner `shared`), or with
 * `oauth.per_user` one per virtual key or MCP session that connected its own account. Sealed in
 * `sealed_grant`: what the authorization server gave (the registered client, the tokens,
 * discovery results) and, while a consent is under way, the PKCE verifier.
 * `pending_state_hash` finds the connection from the authorization callback's `state`.
 */
export const mcpOAuthConnections = sqliteTable(
  "mcp_oauth_connections",
  {
    mcpClientId: text("mcp_client_id")
      .notNull()
      .references(() => mcpClients.id, { onDelete: "cascade" }),
    ownerMode: text("owner_mode", { enum: ["shared", "virtual_key", "session"] }).notNull(),
    /** Empty for `shared`; the virtual key's id, or the SHA-256 of the session id. */
    ownerIdentity: text("owner_identity").notNull(),
    state: text("state", { enum: ["needs_consent", "connected", "refresh_failed"] }).notNull(),
    sealedGrant: text("sealed_grant").notNull(),
    pendingStateHash: text("pending_state_hash"),
    /** When the access token stops working, as the authorization server said; null when it did not say. */
    accessExpiresAt: integer("access_expires_at", { mode: "timestamp_ms" }),
    lastError: text("last_error"),
    connectedAt: integer("connected_at", { mode: "timestamp_ms" }),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    /** The process refreshing the tokens now, so that nodes sharing the connection refresh one at a time (a server that rotates refresh tokens refuses the second). */
    refreshHolder: text("refresh_holder"),
    /** When that right lapses, should its holder die before it lets go. */
    refreshUntil: integer("refresh_until", { mode: "timestamp_ms" }),
  },
  (table) => [primaryKey({ columns: [table.mcpClientId, table.ownerMode, table.ownerIdentity] }), uniqueIndex("mcp_oauth_connections_pending_state_idx").on(table.pendingStateHash)],
);

/** A tool picked for a virtual server: `name` is what the server calls it (default the tool's own). */
export interface VirtualServerTool {
  client: string;
  tool: string;
  name?: string;
  description?: string;
}

/** A resource (or template) picked for a virtual server; `uri` `*` takes every one of the client's. */
export interface VirtualServerResource {
  client: string;
  uri: string;
}

export interface VirtualServerPrompt {
  client: string;
  prompt: string;
  name?: string;
}

/** Who may connect; every list empty admits whoever /mcp admits. */
export interface VirtualServerAccess {
  virtual_key_ids: string[];
  /** Dashboard users (signed in with a password or single sign-on) by role, and by id. */
  role_ids: number[];
  user_ids: string[];
}

/** A named bundle of upstream tools, resources and prompts, served at /mcp/v/{slug} as one MCP server. */
export const mcpVirtualServers = sqliteTable("mcp_virtual_servers", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  description: text("description").notNull(),
  tools: text("tools", { mode: "json" }).$type<VirtualServerTool[]>().notNull(),
  resources: text("resources", { mode: "json" }).$type<VirtualServerResource[]>().notNull(),
  prompts: text("prompts", { mode: "json" }).$type<VirtualServerPrompt[]>().notNull(),
  access: text("access", { mode: "json" }).$type<VirtualServerAccess>().notNull(),
  /** Offer `search_tools` and the pinned tools instead of every tool; null: every tool. */
  toolSearch: text("tool_search", { mode: "json" }).$type<McpToolSearch>(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export type McpClientRow = typeof mcpClients.$inferSelect;
export type McpVirtualServerRow = typeof mcpVirtualServers.$inferSelect;
export type McpOAuthConnectionRow = typeof mcpOAuthConnections.$inferSelect;
export type McpToolLogRow = typeof mcpToolLogs.$inferSelect;
export type NewMcpToolLogRow = typeof mcpToolLogs.$inferInsert;
export type McpPerUserCredentialRow = typeof mcpPerUserCredentials.$inferSelect;
export type McpPerUserHeaderFlowRow = typeof mcpPerUserHeaderFlows.$inferSelect;
