import { GatewayError, notFound } from "../../http/errors";
import { allowsTool } from "../clients/config";
import { type McpClientRegistry, type RegisteredClient, toolsOf } from "../clients/registry";
import type { DiscoveredTool } from "../connection/upstream";
import { exposedToolName as virtualToolName, toolOwner } from "../virtual/bundle";
import { filterPermits, type ToolFilter } from "./filter";

/** A tool as the gateway offers it: `<client>-<tool>`, so names from different servers never clash. */
export interface OfferedTool {
  exposedName: string;
  toolName: string;
  client: RegisteredClient;
  /** Absent when the client's tools are not known yet (a per-user client nobody has used). */
  definition?: DiscoveredTool;
}

export const exposedName = (clientName: string, toolName: string) => `${clientName}-${toolName}`;

const permitted = (client: RegisteredClient, toolName: string, filter: ToolFilter) => allowsTool(client.config.toolsToExecute, toolName) && filterPermits(filter, client.config, toolName);

/** The tool as the filter's door offers it: `<client>-<tool>` on /mcp, its own name on /mcp/{client}, the virtual server's name and description there. */
function asOffered(filter: ToolFilter, client: RegisteredClient, definition: DiscoveredTool): OfferedTool {
  if (filter.virtual) {
    const name = virtualToolName(filter.virtual, client.config.name, definition.name)!;
    const description = filter.virtual.tools.get(name)?.description;
    return { exposedName: name, toolName: definition.name, client, definition: { ...definition, name, ...(description ? { description } : {}) } };
  }
  return { exposedName: filter.bound === undefined ? exposedName(client.config.name, definition.name) : definition.name, toolName: definition.name, client, definition };
}

/** Every discovered tool the filter and the clients' tools_to_execute allow (a bound filter: under their own names). */
export function offeredTools(registry: McpClientRegistry, filter: ToolFilter): OfferedTool[] {
  return registry.list().flatMap((client) =>
    toolsOf(client)
      .filter((tool) => permitted(client, tool.name, filter))
      .map((definition) => asOffered(filter, client, definition)),
  );
}

/** The client and tool an exposed name refers to, before any permission is checked. */
function ownerOf(registry: McpClientRegistry, name: string, filter: ToolFilter): { client?: RegisteredClient; toolName: string } {
  if (filter.bound !== undefined) return { client: registry.byName(filter.bound), toolName: name };
  if (filter.virtual) {
    const owner = toolOwner(filter.virtual, name);
    return { client: owner && registry.byName(owner.clientName), toolName: owner?.name ?? name };
  }
  const separator = name.indexOf("-");
  return { client: separator > 0 ? registry.byName(name.slice(0, separator)) : undefined, toolName: name.slice(separator + 1) };
}

/** The tool an exposed name refers to: 404 when no client owns it, 403 when this caller may not use it. */
export function resolveOfferedTool(registry: McpClientRegistry, name: string, filter: ToolFilter): OfferedTool {
  const { client, toolName } = ownerOf(registry, name, filter);
  if (!client) throw notFound(`no MCP client offers a tool named '${name}' (tools are named <client>-<tool>)`, "caller_mcp_tool_not_found");
  if (!permitted(client, toolName, filter)) {
    throw new GatewayError({ status: 403, errorType: "policy_mcp_tool_not_allowed", message: `tool '${name}' is not allowed for this request`, param: "function.name" });
  }
  const definition = toolsOf(client).find((tool) => tool.name === toolName);
  if (!definition && client.connection?.state === "connected") throw notFound(`MCP client '${client.config.name}' has no tool '${toolName}'`, "caller_mcp_tool_not_found");
  return { exposedName: name, toolName, client, definition };
}

export const autoExecutes = (tool: OfferedTool) => allowsTool(tool.client.config.toolsToAutoExecute, tool.toolName);
