import { type McpClientRegistry, toolsOf } from "../clients/registry";
import { offeredTools } from "../tools/catalogue";
import { type SearchableTool, ToolIndex } from "./tool-index";
import type { EmbedTexts } from "./vector-ranking";

export const sameItems = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * Every client's tools (as `<client>-<tool>`) as one index, built again only when a client was
 * added, changed or removed or listed its tools anew: the registry replaces a client's entry and
 * its tool list rather than changing them, so comparing them by identity tells.
 */
export class CatalogueSearch {
  private built?: { sources: unknown[]; index: ToolIndex };

  constructor(
    private readonly registry: McpClientRegistry,
    private readonly embed?: EmbedTexts,
  ) {}

  index(): ToolIndex {
    const sources = this.registry.list().flatMap((client) => [client.config, toolsOf(client)]);
    if (this.built && sameItems(this.built.sources, sources)) return this.built.index;
    const tools: SearchableTool[] = offeredTools(this.registry, {}).map(({ exposedName, definition }) => ({ name: exposedName, description: definition?.description, inputSchema: definition?.inputSchema }));
    this.built = { sources, index: new ToolIndex(tools, this.embed) };
    return this.built.index;
  }
}
