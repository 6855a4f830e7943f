import { KeywordIndex, wordsOf } from "./keyword-ranking";
import { type EmbedTexts, VectorIndex } from "./vector-ranking";

/** What tool search reads of a tool: an MCP tool definition, under the name callers know it by. */
export interface SearchableTool {
  name: string;
  description?: string;
  inputSchema?: { properties?: Record<string, unknown> };
}

export type Ranking = "vector" | "keyword";

const argumentNames = (tool: SearchableTool) => Object.keys(tool.inputSchema?.properties ?? {});

/** A tool's words: its name twice (it says what the tool does in the fewest words), its description, its argument names. */
const documentOf = (tool: SearchableTool) => {
  const name = wordsOf(tool.name);
  return [...name, ...name, ...wordsOf(tool.description ?? ""), ...argumentNames(tool).flatMap(wordsOf)];
};

/** What is embedded of a tool: the same three parts as a sentence. */
export const embeddingTextOf = (tool: SearchableTool) => `${tool.name.replace(/[-_]+/g, " ")}: ${tool.description ?? ""} (arguments: ${argumentNames(tool).join(", ") || "none"})`;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The `k` permitted tools with the highest positive scores, best first. */
function best<T>(scores: Float64Array, tools: readonly T[], k: number, permits: (tool: T) => boolean): T[] {
  return tools
    .map((tool, index) => ({ tool, score: scores[index]! }))
    .filter(({ tool, score }) => score > 0 && permits(tool))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map(({ tool }) => tool);
}

/**
 * A catalogue of tools made searchable once: keywords (BM25 over names, descriptions and argument
 * names) at once, and, given an embedder, the tools' embeddings, asked for at once too. A search
 * ranks by meaning when the embeddings are there and the query embeds, by keywords otherwise;
 * embeddings that failed are asked for again by the next search.
 */
export class ToolIndex<T extends SearchableTool = SearchableTool> {
  private readonly keywords: KeywordIndex;
  private vectors?: Promise<VectorIndex | undefined>;

  constructor(
    readonly tools: readonly T[],
    private readonly embed?: EmbedTexts,
  ) {
    this.keywords = new KeywordIndex(tools.map(documentOf));
    void this.vectorIndex();
  }

  private vectorIndex(): Promise<VectorIndex | undefined> | undefined {
    if (!this.embed || this.vectors) return this.vectors;
    this.vectors = VectorIndex.build(this.tools.map(embeddingTextOf), this.embed).catch((error) => {
      console.error(`MCP tool search: the tools could not be embedded, this search ranks by keywords: ${message(error)}`);
      this.vectors = undefined;
      return undefined;
    });
    return this.vectors;
  }

  /** The `k` best matches for the query among the tools `permits` allows, best first, and how they were ranked. */
  async search(query: string, k: number, permits: (tool: T) => boolean = () => true): Promise<{ tools: T[]; ranking: Ranking }> {
    const { ranking, scores } = await this.scores(query);
    return { ranking, tools: best(scores, this.tools, k, permits) };
  }

  private async scores(query: string): Promise<{ ranking: Ranking; scores: Float64Array }> {
    const vectors = await this.vectorIndex();
    if (vectors && this.embed) {
      try {
        const [probe] = await this.embed([query]);
        if (probe) return { ranking: "vector", scores: vectors.scores(probe) };
      } catch (error) {
        console.error(`MCP tool search: the query could not be embedded, ranking by keywords: ${message(error)}`);
      }
    }
    return { ranking: "keyword", scores: this.keywords.scores(wordsOf(query)) };
  }
}
