import { Type as t } from "@sinclair/typebox";
import { Timestamp } from "../../http/replies";
import { OpenApiView } from "../openapi/schemas";
import { ProtocolVersionSetting } from "./schemas";

/** What the management API answers about MCP clients (view.ts builds it). */

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Described = { name: t.String(), description: t.String() };

const OAuthConnection = t.Object({
  state: t.Union([t.Literal("needs_consent"), t.Literal("connected"), t.Literal("refresh_failed")]),
  last_error: Nullable(t.String()),
  connected_at: Nullable(Timestamp),
  access_token_expires_at: Nullable(Timestamp),
  registered_client_id: Nullable(t.String()),
});

export const McpClient = t.Object(
  {
    id: t.String(),
    name: t.String(),
    connection_type: t.Union([t.Literal("http"), t.Literal("sse"), t.Literal("stdio"), t.Literal("openapi")]),
    connection_string: Nullable(t.String()),
    protocol_version: ProtocolVersionSetting,
    negotiated_protocol_version: Nullable(t.String({ description: "The MCP revision the live connection speaks (2026-07-28, or what the initialize handshake agreed on); null while it is not connected." })),
    stdio_config: Nullable(t.Object({ command: t.String(), args: t.Array(t.String()), envs: t.Record(t.String(), t.String(), { description: "Values redacted." }) })),
    openapi: Nullable(OpenApiView),
    auth_type: t.Union([t.Literal("none"), t.Literal("headers"), t.Literal("per_user_headers"), t.Literal("oauth")]),
    headers: t.Record(t.String(), t.String(), { description: "Values redacted." }),
    per_user_header_keys: t.Array(t.String()),
    oauth: Nullable(t.Object({ client_id: Nullable(t.String()), client_secret: Nullable(t.String({ description: "Redacted." })), scope: Nullable(t.String()), per_user: t.Boolean(), connection: Nullable(OAuthConnection) })),
    tools_to_execute: t.Array(t.String()),
    tools_notice: Nullable(t.String({ description: "Set while tools_to_execute is empty: every tool is hidden." })),
    tools_to_auto_execute: t.Array(t.String()),
    tool_pricing: t.Record(t.String(), t.Number(), { description: "USD per call, by tool." }),
    state: t.String({ description: "The connection: `connected`, `connecting`, `disconnected`, `error`, or `per_user` (one connection per caller)." }),
    last_error: Nullable(t.String()),
    tools: t.Array(t.Object({ ...Described, input_schema: t.Unknown({ description: "The tool's JSON Schema, as the server gives it." }) })),
    resources: t.Array(t.Object({ uri: t.String(), ...Described, mime_type: Nullable(t.String()) })),
    resource_templates: t.Array(t.Object({ uri_template: t.String(), ...Described, mime_type: Nullable(t.String()) })),
    prompts: t.Array(t.Object({ ...Described, arguments: t.Array(t.Object({ ...Described, required: t.Boolean() })) })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "McpClient", description: "An MCP server the gateway connects to: secrets redacted, with its connection state and what it offers." },
);

export const McpClientList = t.Object({ clients: t.Array(McpClient), count: t.Integer() }, { title: "McpClientList" });
