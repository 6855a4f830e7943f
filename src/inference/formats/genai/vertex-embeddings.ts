/**
 * Embeddings as `@google/genai` asks for them in Vertex AI mode, served as the Gemini API's: a
 * text-embedding model through `:predict`, its texts as instances and the size in `parameters`,
 * answered with `predictions`; a Gemini embedding model through `:embedContent`, its options in
 * `embedContentConfig`.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import type { BatchEmbedContentsRequest, EmbedResponse } from "./schemas";

const open = { additionalProperties: true };

export const PredictEmbeddingsRequest = t.Object(
  {
    instances: t.Array(t.Object({ content: t.String({ minLength: 1 }), task_type: t.Optional(t.String()), title: t.Optional(t.String()) }, open), { minItems: 1 }),
    parameters: t.Optional(t.Object({ outputDimensionality: t.Optional(t.Integer({ minimum: 1 })) }, open)),
  },
  open,
);
export type PredictEmbeddingsRequest = Static<typeof PredictEmbeddingsRequest>;

/** A `:predict` whose instances hold text to embed, not a prompt for an image. */
export const isEmbeddingPredict = (body: unknown): boolean => {
  const instances = (body as { instances?: unknown } | undefined)?.instances;
  return Array.isArray(instances) && instances.some((instance) => typeof (instance as { content?: unknown } | null)?.content === "string");
};

export function batchEmbedOfPredict({ instances, parameters }: PredictEmbeddingsRequest): BatchEmbedContentsRequest {
  const dimensions = parameters?.outputDimensionality ? { outputDimensionality: parameters.outputDimensionality } : {};
  return {
    requests: instances.map(({ content, task_type: taskType, title }) => ({ content: { parts: [{ text: content }] }, ...(taskType ? { taskType } : {}), ...(title ? { title } : {}), ...dimensions })),
  };
}

export const predictionsOf = (reply: EmbedResponse) => ({ predictions: (reply.embeddings ?? []).map(({ values }) => ({ embeddings: { values } })) });

/** embedContent's options where the Gemini API has them: Vertex AI mode sends them in `embedContentConfig`. */
export function withEmbedConfigLifted(body: unknown): unknown {
  const { embedContentConfig, ...rest } = (body ?? {}) as Record<string, unknown>;
  return embedContentConfig && typeof embedContentConfig === "object" ? { ...embedContentConfig, ...rest } : body;
}
