import { allowsTool } from "../clients/config";
import { exposedToolName, type VirtualBundle } from "../virtual/bundle";

/** A virtual key's MCP restriction for one client (`tools_to_execute`: `["*"]` all, empty or omitted none). */
export interface VirtualKeyMcpConfig {
  mcp_client_name: string;
  tools_to_execute?: string[];
}

/**
 * Which MCP tools one request may see and call, on top of each client's tools_to_execute.
 * An absent part does not restrict; a present but empty one allows nothing.
 */
export interface ToolFilter {
  /** `x-gw-mcp-include-clients`: client names. */
  clients?: string[];
  /** `x-gw-mcp-include-tools`: `<client>-<tool>` or `<client>-*`. */
  tools?: string[];
  /** The virtual key's mcp_configs, when it has any. */
  virtualKey?: VirtualKeyMcpConfig[];
  /** /mcp/{client}: only this client, its tools, resources and prompts under their own names. */
  bound?: string;
  /** /mcp/v/{slug}: only the virtual server's picks, under the names it gives them. */
  virtual?: VirtualBundle;
}

/** /mcp/{client} and virtual servers keep URIs as their servers gave them and name nothing `<client>-…`. */
export const keepsNames = (filter: ToolFilter) => filter.bound !== undefined || filter.virtual !== undefined;

export const INCLUDE_CLIENTS_HEADER = "x-gw-mcp-include-clients";
export const INCLUDE_TOOLS_HEADER = "x-gw-mcp-include-tools";

function listHeader(headers: Headers, name: string): string[] | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function toolFilterOf(headers: Headers, virtualKey: VirtualKeyMcpConfig[] | undefined): ToolFilter {
  return {
    clients: listHeader(headers, INCLUDE_CLIENTS_HEADER),
    tools: listHeader(headers, INCLUDE_TOOLS_HEADER),
    virtualKey: virtualKey?.length ? virtualKey : undefined,
  };
}

function virtualKeyAllows(configs: VirtualKeyMcpConfig[], clientName: string, tool: string): boolean {
  const entry = configs.find((config) => config.mcp_client_name === clientName);
  return entry !== undefined && allowsTool(entry.tools_to_execute ?? [], tool);
}

/** Whether the request may see the client at all: its resources and prompts follow this; its tools also `filterPermits`. */
export function clientVisible(filter: ToolFilter, client: { name: string }): boolean {
  if (filter.bound !== undefined && filter.bound !== client.name) return false;
  if (filter.virtual && !filter.virtual.clients.has(client.name)) return false;
  if (filter.clients && !filter.clients.includes(client.name)) return false;
  return !filter.virtualKey || filter.virtualKey.some((config) => config.mcp_client_name === client.name);
}

/** Whether the filter lets a request use `tool` of `client`. */
export function filterPermits(filter: ToolFilter, client: { name: string }, tool: string): boolean {
  if (filter.bound !== undefined && filter.bound !== client.name) return false;
  if (filter.virtual && exposedToolName(filter.virtual, client.name, tool) === undefined) return false;
  if (filter.clients && !filter.clients.includes(client.name)) return false;
  if (filter.tools && !filter.tools.some((pattern) => pattern === `${client.name}-${tool}` || pattern === `${client.name}-*`)) return false;
  return !filter.virtualKey || virtualKeyAllows(filter.virtualKey, client.name, tool);
}
