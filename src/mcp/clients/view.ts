import type { OAuthConnectionView } from "../oauth/connections";
import type { McpClientConfig } from "./config";
import { redactSecret } from "../../provider-registry/key-secrets";
import { type RegisteredClient, stateOf, toolsOf } from "./registry";
import { noToolsSelected } from "./tools-notice";
import { viewOfSettings } from "../openapi/settings";

const redacted = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, redactSecret(value)]));

/** The resources, templates and prompts a connected client offers (per-user clients: none listed). */
function catalogueView(entry: RegisteredClient) {
  const catalogue = entry.connection?.catalogue;
  return {
    resources: (catalogue?.resources ?? []).map((resource) => ({ uri: resource.uri, name: resource.name, description: resource.description ?? "", mime_type: resource.mimeType ?? null })),
    resource_templates: (catalogue?.resourceTemplates ?? []).map((template) => ({ uri_template: template.uriTemplate, name: template.name, description: template.description ?? "", mime_type: template.mimeType ?? null })),
    prompts: (catalogue?.prompts ?? []).map((prompt) => ({ name: prompt.name, description: prompt.description ?? "", arguments: (prompt.arguments ?? []).map((argument) => ({ name: argument.name, description: argument.description ?? "", required: argument.required === true })) })),
  };
}

/** The OAuth connection of an `oauth` client as the list shows it (null for other clients). */
export type OAuthViewOf = (config: McpClientConfig) => OAuthConnectionView | null;

/** An MCP client as every response shows it: secrets redacted, with its connection state, its OAuth connection and tools. */
export const viewWith = (oauthOf: OAuthViewOf) => (entry: RegisteredClient) => clientView(entry, oauthOf(entry.config));

function clientView(entry: RegisteredClient, oauth: OAuthConnectionView | null) {
  const { config } = entry;
  return {
    id: config.id,
    name: config.name,
    connection_type: config.connectionType,
    connection_string: config.connectionString ?? null,
    protocol_version: config.protocolVersion,
    /** The revision the live connection speaks; null while it is not connected. */
    negotiated_protocol_version: entry.connection?.protocolVersion ?? null,
    stdio_config: config.stdio ? { command: config.stdio.command, args: config.stdio.args, envs: redacted(config.stdio.envs) } : null,
    openapi: config.openapi ? { ...viewOfSettings(config.openapi), credentials: redacted(config.openapi.credentials) } : null,
    auth_type: config.authType,
    headers: redacted(config.headers),
    per_user_header_keys: config.perUserHeaderKeys,
    /** auth_type oauth: the configured client (secret redacted), scopes, and the connection's state; never a token. */
    oauth:
      config.authType === "oauth"
        ? { client_id: config.oauth.clientId ?? null, client_secret: config.oauth.clientSecret ? redactSecret(config.oauth.clientSecret) : null, scope: config.oauth.scope ?? null, per_user: config.oauth.perUser === true, connection: oauth }
        : null,
    tools_to_execute: config.toolsToExecute,
    /** Set while tools_to_execute is empty: says that every tool is hidden and how to select some. */
    tools_notice: noToolsSelected(entry) ?? null,
    tools_to_auto_execute: config.toolsToAutoExecute,
    tool_pricing: config.toolPricing,
    state: stateOf(entry),
    last_error: entry.connection?.lastError ?? null,
    tools: toolsOf(entry).map((tool) => ({ name: tool.name, description: tool.description ?? "", input_schema: tool.inputSchema })),
    ...catalogueView(entry),
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}
