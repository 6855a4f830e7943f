import { GatewayError } from "../../http/errors";
import type { Inference } from "../../inference/handle";
import { callPipeline, deadline } from "../pipeline";
import type { EmbeddingSpace } from "./embedding-space";

/** Embeds texts in a space; the call is bounded by the agent's request timeout. */
export type Embedder = (texts: string[], space: EmbeddingSpace, options: { timeoutSeconds: number; signal: AbortSignal }) => Promise<number[][]>;

const wrongShape = (message: string) => new GatewayError({ status: 502, errorType: "provider_invalid_response", message });

function vectorsOf(body: { data?: Array<{ index?: number; embedding?: unknown }> }, count: number, space: EmbeddingSpace): number[][] {
  const rows = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  if (rows.length !== count) throw wrongShape(`the embedding model '${space.model}' answered ${rows.length} vectors for ${count} inputs`);
  return rows.map(({ embedding }) => {
    if (!Array.isArray(embedding) || embedding.some((value) => typeof value !== "number")) throw wrongShape(`the embedding model '${space.model}' answered without a float vector`);
    if (embedding.length !== space.dimension) {
      throw wrongShape(`the embedding model '${space.model}' answered ${embedding.length} dimensions; embedding_dimension is ${space.dimension}`);
    }
    return embedding as number[];
  });
}

/**
 * Embeds through the gateway's own pipeline as one OpenAI-format embeddings request with every
 * text as an input, asking for the configured dimension and checking the answer has it.
 */
export function pipelineEmbedder(inference: () => Inference): Embedder {
  return async (texts, space, { timeoutSeconds, signal }) => {
    const bound = deadline(signal, timeoutSeconds);
    try {
      const body = { model: `${space.provider}/${space.model}`, input: texts, encoding_format: "float", dimensions: space.dimension };
      const response = await callPipeline(inference(), { kind: "embedding", body, keyId: space.keyId, stream: false, signal: bound.signal });
      return vectorsOf((await response.json()) as Parameters<typeof vectorsOf>[0], texts.length, space);
    } catch (error) {
      throw bound.explain(error);
    } finally {
      bound.clear();
    }
  };
}
