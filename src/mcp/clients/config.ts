import { badRequest } from "../../http/errors";
import type { ProtocolSetting } from "../connection/revision";
import { inputFromSettings, settingsFromInput } from "../openapi/settings";
import type { OpenApiSettings } from "../openapi/source";
import type { McpClientCreate } from "./schemas";

export type ConnectionType = "http" | "sse" | "stdio" | "openapi";
export type AuthType = "none" | "headers" | "per_user_headers" | "oauth";

/** auth_type oauth: a client registered beforehand, when there is one, and the scopes to ask for. */
export interface OAuthClientSettings {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** Each virtual key or MCP session connects its own account. */
  perUser?: boolean;
}

/** A client whose every call connects with the caller's own credentials (header values, or OAuth tokens): it holds no shared connection. */
export const connectsPerCaller = (config: McpClientConfig) => config.authType === "per_user_headers" || (config.authType === "oauth" && config.oauth.perUser === true);

/** An MCP client's whole configuration, secrets included: lives in memory only. */
export interface McpClientConfig {
  id: string;
  name: string;
  connectionType: ConnectionType;
  connectionString?: string;
  /** The server's address was written by someone who may point the gateway at loopback and private addresses. */
  privateNetworkAllowed: boolean;
  stdio?: { command: string; args: string[]; envs: Record<string, string> };
  /** http clients: the revision to speak, or `auto` to ask the server. */
  protocolVersion: ProtocolSetting;
  /** connection_type openapi: the document (inline, or fetched from connectionString), the operations kept, the credentials. */
  openapi?: OpenApiSettings;
  authType: AuthType;
  headers: Record<string, string>;
  /** Lower-cased header names. */
  perUserHeaderKeys: string[];
  oauth: OAuthClientSettings;
  toolsToExecute: string[];
  toolsToAutoExecute: string[];
  toolPricing: Record<string, number>;
  createdAt: Date;
  updatedAt: Date;
}

export const allowsTool = (list: readonly string[], tool: string) => list.includes("*") || list.includes(tool);

function checkConnection(input: McpClientCreate): void {
  if (input.connection_type === "stdio" && !input.stdio_config) throw badRequest("stdio clients need stdio_config.command", "stdio_config");
  if (input.connection_type === "openapi") {
    if (input.auth_type === "per_user_headers" || input.auth_type === "oauth") throw badRequest(`an openapi client takes its credentials from openapi.credentials or headers: auth_type ${input.auth_type} is not supported`, "auth_type");
    return;
  }
  if (input.connection_type !== "stdio" && !input.connection_string) throw badRequest(`${input.connection_type} clients need connection_string (the server URL)`, "connection_string");
  if (input.protocol_version === "2026-07-28" && input.connection_type !== "http") throw badRequest(`protocol_version 2026-07-28 needs an http client: a ${input.connection_type} client speaks the initialize handshake`, "protocol_version");
}

function checkAuth(input: McpClientCreate, perUserKeys: string[]): void {
  if (input.auth_type === "per_user_headers" && perUserKeys.length === 0) {
    throw badRequest("auth_type per_user_headers needs at least one per_user_header_keys entry", "per_user_header_keys");
  }
  if (input.auth_type === "oauth" && input.connection_type === "stdio") throw badRequest("auth_type oauth needs an http or sse client: a stdio server is not behind an authorization server", "auth_type");
  if (input.oauth?.client_secret !== undefined && input.oauth.client_id === undefined) throw badRequest("oauth.client_secret needs oauth.client_id", "oauth.client_id");
  const clash = Object.keys(input.headers ?? {}).find((name) => perUserKeys.includes(name.toLowerCase()));
  if (clash) throw badRequest(`header '${clash}' cannot be both a static header and a per-user header key`, `headers.${clash}`);
}

function checkAutoExecute(toolsToExecute: string[], toolsToAutoExecute: string[]): void {
  const stray = toolsToAutoExecute.findIndex((tool) => tool !== "*" && !allowsTool(toolsToExecute, tool));
  if (stray >= 0) throw badRequest(`tool '${toolsToAutoExecute[stray]}' is auto-executed but not in tools_to_execute`, `tools_to_auto_execute[${stray}]`);
  if (toolsToAutoExecute.includes("*") && !toolsToExecute.includes("*")) throw badRequest("'*' in tools_to_auto_execute needs '*' in tools_to_execute", "tools_to_auto_execute");
}

/** Only the settings given: the configuration read back from the database has no undefined fields either, and a difference means a change. */
function oauthSettings(oauth: NonNullable<McpClientCreate["oauth"]>): OAuthClientSettings {
  const settings: OAuthClientSettings = { clientId: oauth.client_id, clientSecret: oauth.client_secret, scope: oauth.scope, perUser: oauth.per_user };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** Checks a complete client description and turns it into a configuration (400 naming the field otherwise). */
export function configFromInput(id: string, input: McpClientCreate, times: { createdAt: Date; updatedAt: Date }, privateNetworkAllowed: boolean): McpClientConfig {
  checkConnection(input);
  const perUserHeaderKeys = [...new Set((input.per_user_header_keys ?? []).map((key) => key.toLowerCase()))];
  checkAuth(input, perUserHeaderKeys);
  const toolsToExecute = input.tools_to_execute ?? [];
  const toolsToAutoExecute = input.tools_to_auto_execute ?? [];
  checkAutoExecute(toolsToExecute, toolsToAutoExecute);
  const headers = input.headers ?? {};
  return {
    id,
    name: input.name,
    connectionType: input.connection_type,
    connectionString: input.connection_type === "stdio" ? undefined : input.connection_string,
    privateNetworkAllowed,
    stdio: input.connection_type === "stdio" && input.stdio_config ? { command: input.stdio_config.command, args: input.stdio_config.args ?? [], envs: input.stdio_config.envs ?? {} } : undefined,
    protocolVersion: input.protocol_version ?? "auto",
    openapi: input.connection_type === "openapi" ? settingsFromInput(input.openapi ?? {}, input.connection_string) : undefined,
    authType: input.auth_type ?? (Object.keys(headers).length > 0 ? "headers" : "none"),
    headers,
    perUserHeaderKeys,
    oauth: input.auth_type === "oauth" && input.oauth ? oauthSettings(input.oauth) : {},
    toolsToExecute,
    toolsToAutoExecute,
    toolPricing: input.tool_pricing ?? {},
    ...times,
  };
}

/** The configuration as a write body: what an update is merged over. */
export function inputFromConfig(config: McpClientConfig): McpClientCreate {
  return {
    name: config.name,
    connection_type: config.connectionType,
    connection_string: config.connectionString,
    stdio_config: config.stdio && { command: config.stdio.command, args: config.stdio.args, envs: config.stdio.envs },
    protocol_version: config.protocolVersion,
    openapi: config.openapi && inputFromSettings(config.openapi),
    auth_type: config.authType,
    headers: config.headers,
    per_user_header_keys: config.perUserHeaderKeys,
    oauth: { client_id: config.oauth.clientId, client_secret: config.oauth.clientSecret, scope: config.oauth.scope, per_user: config.oauth.perUser },
    tools_to_execute: config.toolsToExecute,
    tools_to_auto_execute: config.toolsToAutoExecute,
    tool_pricing: config.toolPricing,
  };
}
