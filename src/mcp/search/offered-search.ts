import type { McpToolSearch } from "../../db/schema/types";
import { toolsOf } from "../clients/registry";
import type { OfferedTool } from "../tools/catalogue";
import { sameItems } from "./catalogue-index";
import { offerToolSearch } from "./offer";
import { DEFAULT_MAX_RESULTS, type ToolSearchOptions } from "./options";
import { type SearchableTool, ToolIndex } from "./tool-index";
import type { EmbedTexts } from "./vector-ranking";

/**
 * Tool search on a door with names of its own (a virtual server): one index of the tools it
 * offers, under those names, built again only when an upstream's config or tool list was replaced
 * or the caller is offered other tools (a virtual key may narrow them).
 */
export class OfferedToolSearch {
  readonly options: ToolSearchOptions;
  private built?: { sources: unknown[]; index: ToolIndex };

  constructor(
    setting: McpToolSearch,
    private readonly embed?: EmbedTexts,
  ) {
    this.options = { pinned: setting.pinned ?? [], maxResults: setting.max_results ?? DEFAULT_MAX_RESULTS };
  }

  /** What tools/list answers: `search_tools`, the pinned tools and the ones found. */
  offer(tools: readonly OfferedTool[], found: ReadonlySet<string>) {
    return offerToolSearch(tools, this.options, found);
  }

  async search(tools: readonly OfferedTool[], query: string): Promise<SearchableTool[]> {
    return (await this.indexOf(tools).search(query, this.options.maxResults)).tools;
  }

  private indexOf(tools: readonly OfferedTool[]): ToolIndex {
    const sources = [...[...new Set(tools.map((tool) => tool.client))].flatMap((client) => [client.config, toolsOf(client)]), ...tools.map((tool) => tool.exposedName)];
    if (this.built && sameItems(this.built.sources, sources)) return this.built.index;
    const searchable = tools.map(({ exposedName, definition }) => ({ name: exposedName, description: definition?.description, inputSchema: definition?.inputSchema }));
    this.built = { sources, index: new ToolIndex(searchable, this.embed) };
    return this.built.index;
  }
}
