import { type Static, Type as t } from "@sinclair/typebox";
import { McpToolSearch } from "../../db/schema/types";
import { Timestamp } from "../../http/replies";

/** In the URL: /mcp/v/{slug}. */
const Slug = t.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$", description: "lowercase letters, digits, `-` and `_`; the server's path is /mcp/v/{slug}" });
/** The names MCP allows a tool. */
const ToolName = t.String({ pattern: "^[A-Za-z0-9_.-]{1,128}$" });
const ClientName = t.String({ minLength: 1, description: "The registered MCP client's name." });

const ToolPick = t.Object({
  client: ClientName,
  tool: t.String({ minLength: 1, description: "The tool's name on its server." }),
  name: t.Optional(ToolName),
  description: t.Optional(t.String({ description: "Replaces the server's description of the tool." })),
});
const ResourcePick = t.Object({
  client: ClientName,
  uri: t.String({ minLength: 1, description: "A resource URI, a URI template, or `*` for every resource and template of the client." }),
});
const PromptPick = t.Object({ client: ClientName, prompt: t.String({ minLength: 1 }), name: t.Optional(ToolName) });
const Access = t.Object({
  virtual_key_ids: t.Array(t.String({ minLength: 1 }), { description: "The virtual keys that may connect." }),
  role_ids: t.Optional(t.Array(t.Integer(), { description: "Dashboard users of these roles may connect with their session token (Authorization: Bearer gws_...)." })),
  user_ids: t.Optional(t.Array(t.String({ minLength: 1 }), { description: "Dashboard users (password or single sign-on) who may connect with their session token." })),
}, { description: "Every list empty: whoever /mcp admits. Otherwise only the keys, roles and users named." });

const fields = {
  slug: Slug,
  name: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Shown to clients as the server's title; default the slug." })),
  description: t.Optional(t.String({ description: "Sent to clients as the server's instructions." })),
  tools: t.Optional(t.Array(ToolPick, { description: "Served under `name` (default the tool's own); two picks with one name are refused." })),
  resources: t.Optional(t.Array(ResourcePick)),
  prompts: t.Optional(t.Array(PromptPick)),
  access: t.Optional(Access),
  tool_search: t.Optional(
    t.Union([McpToolSearch, t.Null()], { description: "Offer `search_tools` and the pinned tools (by this server's names) instead of every tool; null turns it off." }),
  ),
};

export const VirtualServerCreate = t.Object(fields);
export type VirtualServerCreate = Static<typeof VirtualServerCreate>;
/** Omitted fields keep their value; a list given replaces the list. */
export const VirtualServerUpdate = t.Partial(t.Object(fields));
export type VirtualServerUpdate = Static<typeof VirtualServerUpdate>;
export const VirtualServerParams = t.Object({ id: t.String() });

export const VirtualServer = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    name: t.String(),
    description: t.String(),
    path: t.String({ description: "Where clients connect: /mcp/v/{slug}." }),
    tools: t.Array(ToolPick),
    resources: t.Array(ResourcePick),
    prompts: t.Array(PromptPick),
    access: Access,
    tool_search: t.Union([McpToolSearch, t.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "McpVirtualServer", description: "A named bundle of upstream tools, resources and prompts, served as one MCP server." },
);
export const VirtualServerList = t.Object({ virtual_servers: t.Array(VirtualServer), count: t.Integer() }, { title: "McpVirtualServerList" });
