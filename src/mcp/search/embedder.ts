import { handleInference, type Inference } from "../../inference/handle";
import type { EmbedTexts } from "./vector-ranking";

/** Texts per embeddings request: well under what providers accept in one (OpenAI: 2,048). */
const BATCH = 256;

const TOOL_SEARCH_CALLER = "mcp-tool-search";

function vectorsOf(body: { data?: Array<{ index?: number; embedding?: unknown }> }, count: number, model: string): number[][] {
  const rows = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  if (rows.length !== count) throw new Error(`the embedding model '${model}' answered ${rows.length} vectors for ${count} inputs`);
  return rows.map(({ embedding }) => {
    if (!Array.isArray(embedding) || embedding.length === 0 || embedding.some((value) => typeof value !== "number")) throw new Error(`the embedding model '${model}' answered without a float vector`);
    return embedding as number[];
  });
}

async function embedBatch(inference: Inference, model: string, texts: string[]): Promise<number[][]> {
  const body = { model, input: texts, encoding_format: "float" };
  const request = new Request("http://gateway.internal/v1/embeddings", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const response = await handleInference(inference, { operation: "embedding", format: "openai", body, model, fallbacks: [], stream: false, request, internalCaller: TOOL_SEARCH_CALLER });
  if (response.status !== 200) throw new Error(`the embedding model '${model}' answered HTTP ${response.status}`);
  return vectorsOf((await response.json()) as Parameters<typeof vectorsOf>[0], texts.length, model);
}

/**
 * Embeds through the gateway's own pipeline as OpenAI-format embeddings requests on the
 * deployment's behalf (no virtual key): logged and priced like any other request.
 */
export function pipelineEmbedder(inference: () => Inference, model: string): EmbedTexts {
  return async (texts) => {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += BATCH) vectors.push(...(await embedBatch(inference(), model, texts.slice(start, start + BATCH))));
    return vectors;
  };
}
