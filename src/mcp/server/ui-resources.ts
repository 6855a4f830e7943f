import type { DiscoveredTool } from "../connection/upstream";
import type { OfferedTool } from "../tools/catalogue";

/**
 * MCP Apps: a tool names the `ui://` resource its host renders in `_meta.ui.resourceUri` (or the
 * older flat `_meta["ui/resourceUri"]`). Hosts require the `ui://` scheme, so the gateway passes
 * these URIs through unchanged on every door, and finds a read's upstream by the tool naming it.
 */
export const isUiResource = (uri: string) => uri.startsWith("ui://");

function uiResourceOf(definition: DiscoveredTool | undefined): unknown {
  const meta = definition?._meta as { ui?: { resourceUri?: unknown }; "ui/resourceUri"?: unknown } | undefined;
  return meta?.ui?.resourceUri ?? meta?.["ui/resourceUri"];
}

/** The client of the first offered tool naming this `ui://` resource. */
export function uiResourceOwner(tools: OfferedTool[], uri: string): { clientName: string; name: string } | undefined {
  const tool = tools.find((candidate) => uiResourceOf(candidate.definition) === uri);
  return tool && { clientName: tool.client.config.name, name: uri };
}
