import { handleInference, type Inference } from "../inference/handle";

export interface EmbeddingModel {
  embeddingModel: string;
  dimensions?: number;
}

/** Embeds a text; the caller's headers go along so the call is the caller's own. */
export type Embedder = (text: string, model: EmbeddingModel, callerHeaders: Headers) => Promise<number[]>;

/** Headers of the caller's request that must not reach the internal embedding call. */
const DROPPED_HEADERS = ["content-length", "content-type", "accept-encoding", "x-gw-cache-key", "x-gw-cache-ttl", "x-gw-fallbacks"];

/**
 * Embeds through the gateway's own pipeline as an OpenAI-format embeddings request, carrying
 * the caller's credentials: governance, budgets, logs and metrics see it like any other call.
 * It is never stored in the cache itself.
 */
export function pipelineEmbedder(inference: () => Inference): Embedder {
  return async (text, { embeddingModel, dimensions }, callerHeaders) => {
    const body = { model: embeddingModel, input: text, encoding_format: "float", ...(dimensions ? { dimensions } : {}) };
    const headers = new Headers(callerHeaders);
    for (const name of DROPPED_HEADERS) headers.delete(name);
    headers.set("content-type", "application/json");
    headers.set("x-gw-cache-no-store", "true");
    const request = new Request("http://gateway.internal/v1/embeddings", { method: "POST", headers, body: JSON.stringify(body) });
    const response = await handleInference(inference(), { operation: "embedding", format: "openai", body, model: embeddingModel, fallbacks: [], stream: false, request });
    const vector = ((await response.json()) as { data?: Array<{ embedding?: unknown }> }).data?.[0]?.embedding;
    if (!Array.isArray(vector) || vector.length === 0 || vector.some((value) => typeof value !== "number")) {
      throw new Error(`the embedding model '${embeddingModel}' answered without a vector`);
    }
    return vector as number[];
  };
}
