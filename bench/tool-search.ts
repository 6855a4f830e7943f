/**
 * `npx bun bench/tool-search.ts [--embeddings-url URL --embeddings-model NAME]`: what tool search
 * saves and how often it finds the right tool, on a generated catalogue of 500 tools
 * (bench/tool-catalogue.ts).
 *
 * - Tokens of one chat request (a short user turn plus the tool definitions, in OpenAI's format as
 *   the gateway injects them), counted with the o200k tokenizer the gateway estimates with: every
 *   tool, then search_tools alone, then search_tools with the tools one search found.
 * - recall@1 and recall@5 over 50 hand-labelled requests, ranked by keywords (BM25) and by
 *   vectors. Without --embeddings-url the vectors are the gateway's hashed words-and-bigrams
 *   embedding (src/governance/complexity/hashed-embedding.ts): deterministic and lexical, no model.
 *   With it, an OpenAI-compatible /embeddings endpoint (key in EMBEDDINGS_API_KEY) embeds.
 */
import { parseArgs } from "node:util";
import { densify, embedText } from "../src/governance/complexity/hashed-embedding";
import type { ChatRequest } from "../src/inference/canonical";
import { estimateInputTokens } from "../src/inference/token-count";
import { type DeclaredTool, withInjectedTools } from "../src/mcp/chat/tool-injection";
import { offerToolSearch } from "../src/mcp/search/offer";
import { DEFAULT_MAX_RESULTS } from "../src/mcp/search/options";
import { type SearchableTool, ToolIndex } from "../src/mcp/search/tool-index";
import type { EmbedTexts } from "../src/mcp/search/vector-ranking";
import { CATALOGUE, LABELLED_QUERIES } from "./tool-catalogue";

const { values: flags } = parseArgs({ options: { "embeddings-url": { type: "string" }, "embeddings-model": { type: "string" } } });

const declared: DeclaredTool[] = CATALOGUE.map((tool) => ({ exposedName: tool.name, definition: { name: tool.name, description: tool.description, inputSchema: { type: "object", ...(tool.inputSchema as { properties?: Record<string, object> }) } } }));
const request = (tools: readonly DeclaredTool[]) => withInjectedTools({ model: "gpt-4o", messages: [{ role: "user", content: "Bill ACME 1200 euros for March consulting." }] }, "openai", tools);
const tokensOf = (body: Record<string, unknown>) => estimateInputTokens(body as unknown as ChatRequest);

const hashedEmbedding: EmbedTexts = async (texts) => texts.map((text) => Array.from(densify(embedText(text))));

function endpointEmbedding(url: string, model: string): EmbedTexts {
  return async (texts) => {
    const response = await fetch(`${url.replace(/\/+$/, "")}/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${process.env.EMBEDDINGS_API_KEY ?? ""}` },
      body: JSON.stringify({ model, input: texts, encoding_format: "float" }),
    });
    if (!response.ok) throw new Error(`embeddings: HTTP ${response.status}`);
    const { data } = (await response.json()) as { data: Array<{ index: number; embedding: number[] }> };
    return data.sort((a, b) => a.index - b.index).map((row) => row.embedding);
  };
}

async function recall(label: string, index: ToolIndex<SearchableTool>) {
  let top1 = 0;
  let top5 = 0;
  const missed: string[] = [];
  const started = performance.now();
  for (const { query, tool } of LABELLED_QUERIES) {
    const { tools, ranking } = await index.search(query, DEFAULT_MAX_RESULTS);
    if (ranking !== (label === "keywords" ? "keyword" : "vector")) throw new Error(`${label}: ranked by ${ranking}`);
    const names = tools.map((found) => found.name);
    if (names[0] === tool) top1++;
    if (names.includes(tool)) top5++;
    else missed.push(`  missed: "${query}" → ${names.slice(0, 3).join(", ") || "nothing"} (wanted ${tool})`);
  }
  const perQuery = ((performance.now() - started) * 1000) / LABELLED_QUERIES.length;
  console.log(`${label.padEnd(40)} recall@1 ${top1}/${LABELLED_QUERIES.length}  recall@5 ${top5}/${LABELLED_QUERIES.length}  (${perQuery.toFixed(0)} µs a search, load-dependent)`);
  for (const line of missed) console.log(line);
}

for (const { tool } of LABELLED_QUERIES) if (!CATALOGUE.some((entry) => entry.name === tool)) throw new Error(`labelled tool ${tool} is not in the catalogue`);

const all = await tokensOf(request(declared));
const searchOnly = await tokensOf(request(offerToolSearch(declared, { pinned: [], maxResults: DEFAULT_MAX_RESULTS })));
const found = new Set((await new ToolIndex(CATALOGUE).search("bill a customer for consulting", DEFAULT_MAX_RESULTS)).tools.map((tool) => tool.name));
const afterSearch = await tokensOf(request(offerToolSearch(declared, { pinned: [], maxResults: DEFAULT_MAX_RESULTS }, found)));
console.log(`catalogue: ${CATALOGUE.length} tools; input tokens of one request (o200k):`);
console.log(`  every tool                     ${all}`);
console.log(`  search_tools only              ${searchOnly}  (${((1 - searchOnly / all) * 100).toFixed(1)} % fewer)`);
console.log(`  search_tools + ${found.size} found tools     ${afterSearch}  (${((1 - afterSearch / all) * 100).toFixed(1)} % fewer)`);

const buildStarted = performance.now();
const keywords = new ToolIndex(CATALOGUE);
console.log(`keyword index built in ${(performance.now() - buildStarted).toFixed(1)} ms (load-dependent)`);
await recall("keywords", keywords);
await recall("vectors: hashed words-and-bigrams embedding", new ToolIndex(CATALOGUE, hashedEmbedding));
const url = flags["embeddings-url"];
if (url) await recall(`vectors: ${flags["embeddings-model"]}`, new ToolIndex(CATALOGUE, endpointEmbedding(url, flags["embeddings-model"] ?? "text-embedding-3-small")));
