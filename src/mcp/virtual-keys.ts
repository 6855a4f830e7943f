import type { VirtualKeyRow } from "../db/schema";
import type { McpVirtualKey, VirtualKeyDirectory } from "./caller";

/** What MCP reads of governance's virtual keys; governance holds them in memory. */
export interface VirtualKeySource {
  findByValue(value: string): VirtualKeyRow | undefined;
  readonly keys: { get(id: string): VirtualKeyRow | undefined };
}

const view = (row: VirtualKeyRow | undefined): McpVirtualKey | undefined => row && { id: row.id, name: row.name, active: row.isActive, mcpConfigs: row.mcpConfigs, toolSearch: row.mcpToolSearch };

/** Governance's own in-memory key store, read without a database round trip per request. */
export function virtualKeysFromGovernance(source: VirtualKeySource): VirtualKeyDirectory {
  return {
    byValue: async (value) => view(source.findByValue(value)),
    byId: async (id) => view(source.keys.get(id)),
  };
}
