/**
 * embedContent (one input, answered with `embedding`) and batchEmbedContents (several, answered
 * with `embeddings`) and the canonical embeddings, both ways.
 */
import type { EmbeddingRequest, EmbeddingResponse } from "../../canonical";
import type { EmbeddingCodec } from "../types";
import type { BatchEmbedContentsRequest, Content, EmbedContentRequest, EmbedResponse } from "./schemas";

const textOf = (content: Content) => content.parts.map((part) => part.text ?? "").join("");
const bareModel = (model: unknown) => (typeof model === "string" ? model.replace(/^models\//, "") : "");

function decodeRequest(body: Record<string, unknown>): EmbeddingRequest {
  if (Array.isArray(body.requests)) {
    const { requests } = body as BatchEmbedContentsRequest;
    const dimensions = requests[0]?.outputDimensionality;
    return { model: bareModel(requests[0]?.model), input: requests.map((request) => textOf(request.content)), ...(dimensions ? { dimensions } : {}) };
  }
  const request = body as EmbedContentRequest;
  return { model: bareModel(request.model), input: textOf(request.content), ...(request.outputDimensionality ? { dimensions: request.outputDimensionality } : {}) };
}

/** One input is an embedContent body, several a batchEmbedContents body; the adapter picks the endpoint by the shape. */
function encodeRequest(request: EmbeddingRequest): Record<string, unknown> {
  const dimensions = request.dimensions ? { outputDimensionality: request.dimensions } : {};
  const contentOf = (text: string) => ({ parts: [{ text }] });
  if (typeof request.input === "string") return { content: contentOf(request.input), ...dimensions };
  return { requests: request.input.map((text) => ({ model: `models/${request.model}`, content: contentOf(text), ...dimensions })) };
}

function decodeResponse(body: unknown): EmbeddingResponse {
  const response = body as EmbedResponse;
  const embeddings = response.embeddings ?? (response.embedding ? [response.embedding] : []);
  return {
    object: "list",
    model: "",
    data: embeddings.map((embedding, index) => ({ object: "embedding", index, embedding: embedding.values })),
    // Gemini's embedding answers carry no token counts.
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
}

/** Always the batch shape: the /genai mount unwraps it for a client that called embedContent. */
const encodeResponse = (response: EmbeddingResponse): EmbedResponse => ({ embeddings: response.data.map((row) => ({ values: row.embedding })) });

export const genaiEmbedding: EmbeddingCodec = { decodeRequest, encodeRequest, decodeResponse, encodeResponse };
