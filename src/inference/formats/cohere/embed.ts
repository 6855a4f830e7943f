import { badRequest } from "../../../http/errors";
import type { EmbeddingRequest, EmbeddingResponse } from "../../canonical";
import type { EmbeddingCodec } from "../types";
import type { CohereEmbedRequest } from "./request-schema";
import type { CohereEmbedResponse } from "./wire";

/** What Cohere's v3+ embed models need to know; documents are the common case for a translated request. */
const DEFAULT_INPUT_TYPE = "search_document";

function embedRequestFromCohere(body: CohereEmbedRequest): EmbeddingRequest {
  if (!body.texts) {
    const param = body.images ? "images" : "inputs";
    throw badRequest(`only texts can be embedded by a model outside Cohere; ${param} cannot be translated`, param, "caller_unsupported_translation");
  }
  const otherTypes = (body.embedding_types ?? []).filter((type) => type !== "float");
  if (otherTypes.length) {
    throw badRequest(`a model outside Cohere returns float embeddings only, not ${otherTypes.join(", ")}`, "embedding_types", "caller_unsupported_translation");
  }
  return { model: body.model, input: body.texts, ...(body.output_dimension ? { dimensions: body.output_dimension } : {}) };
}

function embedRequestToCohere(request: EmbeddingRequest): Record<string, unknown> {
  return {
    model: request.model,
    texts: Array.isArray(request.input) ? request.input : [request.input],
    input_type: DEFAULT_INPUT_TYPE,
    embedding_types: ["float"],
    ...(request.dimensions ? { output_dimension: request.dimensions } : {}),
  };
}

function embedResponseFromCohere(body: CohereEmbedResponse): EmbeddingResponse {
  const tokens = body.meta?.billed_units?.input_tokens ?? body.meta?.tokens?.input_tokens ?? 0;
  return {
    object: "list",
    model: "",
    data: (body.embeddings.float ?? []).map((embedding, index) => ({ object: "embedding", index, embedding })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function embedResponseToCohere(response: EmbeddingResponse): CohereEmbedResponse {
  const ordered = [...response.data].sort((a, b) => a.index - b.index);
  return {
    id: crypto.randomUUID(),
    embeddings: { float: ordered.map((row) => row.embedding) },
    meta: { api_version: { version: "2" }, billed_units: { input_tokens: response.usage.prompt_tokens } },
    response_type: "embeddings_by_type",
  };
}

export const cohereEmbedding: EmbeddingCodec = {
  decodeRequest: (body) => embedRequestFromCohere(body as CohereEmbedRequest),
  encodeRequest: embedRequestToCohere,
  decodeResponse: (body) => embedResponseFromCohere(body as CohereEmbedResponse),
  encodeResponse: embedResponseToCohere,
};
