/**
 * Vertex embeds with `:predict`, one instance per text, and answers one prediction per instance.
 * Requests arrive as Gemini's embedContent or batchEmbedContents bodies and replies go back in the
 * batchEmbedContents shape, which the genai codec reads (and the /genai mount unwraps for embedContent).
 */
import { GatewayError } from "../../../http/errors";
import type { BatchEmbedContentsRequest, Content, EmbedContentRequest, EmbedResponse } from "../../formats/genai/schemas";

interface PredictReply {
  predictions?: Array<{ embeddings?: { values?: number[] } }>;
}

const textOf = (content: Content) => content.parts.map((part) => part.text ?? "").join("");

/** Vertex names the embedContent fields in snake case, one instance per text. */
function instanceOf(request: EmbedContentRequest) {
  return { content: textOf(request.content), ...(request.taskType ? { task_type: request.taskType } : {}), ...(request.title ? { title: request.title } : {}) };
}

/** The `:predict` body for an embedContent or batchEmbedContents body; the dimensions are one parameter for all instances. */
export function predictBody(body: Record<string, unknown>): Record<string, unknown> {
  const requests = Array.isArray(body.requests) ? (body as BatchEmbedContentsRequest).requests : [body as EmbedContentRequest];
  const dimensions = requests[0]?.outputDimensionality;
  return { instances: requests.map(instanceOf), ...(dimensions ? { parameters: { outputDimensionality: dimensions } } : {}) };
}

/** Vertex's predictions as Gemini's batchEmbedContents answer; a prediction without a vector is the upstream's fault. */
export function batchEmbedReply(reply: PredictReply): EmbedResponse | GatewayError {
  const vectors = (reply.predictions ?? []).map((prediction) => prediction.embeddings?.values);
  if (vectors.length === 0 || vectors.some((values) => !Array.isArray(values))) {
    return new GatewayError({ status: 502, errorType: "provider_bad_response", isGatewayError: false, message: "Vertex answered :predict without an embedding per instance" });
  }
  return { embeddings: vectors.map((values) => ({ values: values! })) };
}
