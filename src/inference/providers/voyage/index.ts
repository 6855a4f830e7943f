import type { Operation } from "../../../upstream/operations";
import { jsonReply, replyJson } from "../media-replies";
import { bearerHeaders, OPENAI_PATHS, openAIPayload, requireBaseUrl } from "../openai-compatible";
import type { ProviderAdapter } from "../../../upstream/adapter";

type Body = Record<string, unknown>;
interface VoyageList {
  data?: Array<Record<string, unknown>>;
  model?: string;
  usage?: { total_tokens?: number };
}

/** Voyage names OpenAI's and Cohere's fields its own way: `top_k`, `output_dimension`. */
function voyageBody(operation: Operation, body: Body): Body {
  const { top_n, dimensions, ...rest } = body;
  if (operation === "rerank") return { ...rest, ...(top_n === undefined ? {} : { top_k: top_n }) };
  return { ...rest, ...(dimensions === undefined ? {} : { output_dimension: dimensions }) };
}

/**
 * Voyage AI's embeddings and rerankers at `{base}/embeddings` and `{base}/rerank`, the key as
 * bearer. Its replies count only `total_tokens`, which are input tokens; a rerank answers its
 * ranking as `data`, read back into the `results` every other reranker answers.
 */
export const voyage: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["embedding", "rerank"]),
  keyOptional: false,
  buildCall(operation, target, body) {
    return { url: `${requireBaseUrl(target)}${OPENAI_PATHS[operation]!}`, ...openAIPayload(operation, voyageBody(operation, body), target.model, bearerHeaders(target)) };
  },
  async readReply(operation, reply) {
    const answer = await replyJson<VoyageList>(reply);
    const tokens = answer.usage?.total_tokens ?? 0;
    const usage = { prompt_tokens: tokens, total_tokens: tokens };
    if (operation === "rerank") return jsonReply(reply, { model: answer.model, results: answer.data ?? [], usage });
    return jsonReply(reply, { object: "list", data: answer.data ?? [], model: answer.model, usage });
  },
};
