import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { VirtualBundle } from "./bundle";

/**
 * A virtual server introduces itself by its slug and description, with the capabilities of what it
 * picked; resources always, as its tools' MCP Apps (`ui://`) resources are read through it.
 */
export function virtualIdentity(bundle: VirtualBundle, aggregate: ServerCapabilities) {
  const capabilities: ServerCapabilities = {
    ...(bundle.tools.size > 0 ? { tools: aggregate.tools } : {}),
    resources: aggregate.resources,
    ...(bundle.prompts.size > 0 ? { prompts: aggregate.prompts } : {}),
    ...(bundle.resources.length > 0 || bundle.prompts.size > 0 ? { completions: {} } : {}),
    logging: {},
  };
  return { info: { name: bundle.slug, title: bundle.name, version: "1.0.0" }, capabilities, instructions: bundle.description || undefined };
}
