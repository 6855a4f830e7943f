import { type Static, Type as t } from "@sinclair/typebox";
import { OpenApiInput } from "../openapi/schemas";

/** No hyphen: tools are exposed as `<client>-<tool>`, so the first hyphen splits the two. */
const ClientName = t.String({ pattern: "^[A-Za-z0-9_]{1,64}$", description: "letters, digits and underscores" });
/** `["*"]` allows every tool of the client; empty allows none. */
const ToolNames = t.Array(t.String({ minLength: 1 }));
const StringMap = t.Record(t.String({ minLength: 1 }), t.String());

/**
 * http clients: the MCP revision spoken to the server. `auto` (the default) asks it with
 * server/discover and speaks 2026-07-28 when it offers that revision, the initialize handshake
 * (2025-11-25 and older) otherwise; the others pin one.
 */
export const ProtocolVersionSetting = t.Union([t.Literal("auto"), t.Literal("2026-07-28"), t.Literal("2025-11-25")]);

const fields = {
  name: ClientName,
  connection_type: t.Union([t.Literal("http"), t.Literal("sse"), t.Literal("stdio"), t.Literal("openapi")]),
  /** The server URL for http and sse; for openapi, the URL of the OpenAPI document (or give openapi.document). */
  connection_string: t.Optional(t.String({ pattern: "^https?://" })),
  stdio_config: t.Optional(
    t.Object({
      command: t.String({ minLength: 1 }),
      args: t.Optional(t.Array(t.String())),
      /** Values are secrets like header values; `env.NAME` reads the gateway's environment. */
      envs: t.Optional(StringMap),
    }),
  ),
  openapi: t.Optional(OpenApiInput),
  auth_type: t.Optional(t.Union([t.Literal("none"), t.Literal("headers"), t.Literal("per_user_headers"), t.Literal("oauth")])),
  /** Sent with every request to the upstream; encrypted at rest and redacted in responses. */
  headers: t.Optional(StringMap),
  /** auth_type per_user_headers: the headers each identity supplies for itself. */
  per_user_header_keys: t.Optional(t.Array(t.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }))),
  /**
   * auth_type oauth: a client registered with the server's authorization server beforehand. Without
   * client_id the gateway registers itself (RFC 7591); the secret is encrypted at rest and redacted.
   */
  oauth: t.Optional(
    t.Object({
      client_id: t.Optional(t.String({ minLength: 1 })),
      client_secret: t.Optional(t.String({ minLength: 1 })),
      /** Space-separated scopes to ask for; default: what the server's metadata lists. */
      scope: t.Optional(t.String({ minLength: 1 })),
      /** Each virtual key (or MCP session) connects its own account instead of one administrator's consent serving everyone. */
      per_user: t.Optional(t.Boolean()),
    }),
  ),
  protocol_version: t.Optional(ProtocolVersionSetting),
  tools_to_execute: t.Optional(ToolNames),
  /** Tools agent mode runs by itself; each must also be allowed by tools_to_execute. */
  tools_to_auto_execute: t.Optional(ToolNames),
  /** USD charged per call, by tool name. */
  tool_pricing: t.Optional(t.Record(t.String({ minLength: 1 }), t.Number({ minimum: 0 }))),
};

export const McpClientCreate = t.Object(fields);
export type McpClientCreate = Static<typeof McpClientCreate>;

/** Omitted fields keep their value; a redacted header value written back means "unchanged". */
export const McpClientUpdate = t.Partial(t.Object(fields));
export type McpClientUpdate = Static<typeof McpClientUpdate>;

export const ClientParams = t.Object({ id: t.String() });
