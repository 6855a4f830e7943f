import { Elysia, t } from "elysia";
import { configuredModels } from "../../provider-registry/model-listing";
import { handleInference, type Inference } from "../handle";
import type { Operation } from "../operations";

const open = { additionalProperties: true } as const;
const gatewayFields = {
  model: t.String({ minLength: 1 }),
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
  stream: t.Optional(t.Boolean()),
};

const ChatCompletionBody = t.Object({ ...gatewayFields, messages: t.Array(t.Object({ role: t.String() }, open), { minItems: 1 }) }, open);
const CompletionBody = t.Object({ ...gatewayFields, prompt: t.Union([t.String(), t.Array(t.Unknown())]) }, open);
const EmbeddingBody = t.Object({ ...gatewayFields, input: t.Union([t.String(), t.Array(t.Unknown(), { minItems: 1 })]) }, open);
const ResponsesBody = t.Object({ ...gatewayFields, input: t.Optional(t.Unknown()) }, open);

type OpenAIBody = { model: string; fallbacks?: string[]; stream?: boolean } & Record<string, unknown>;

/**
 * The OpenAI-format surface: `/v1`, and the same routes under `/openai/v1` and the framework
 * mounts. `mountProvider` answers bare model names on a provider mount.
 */
export function openAIMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = (operation: Operation, { fallbacks = [], ...body }: OpenAIBody, request: Request) =>
    handleInference(inference, {
      operation,
      format: "openai",
      body,
      model: body.model,
      fallbacks,
      stream: operation !== "embedding" && body.stream === true,
      request,
      mountProvider,
    });

  const listModels = () => ({
    object: "list",
    data: configuredModels(inference.providers).map(({ id, provider }) => ({ id, object: "model", created: 0, owned_by: provider.name })),
  });

  return new Elysia({ name: `openai-mount:${prefix}`, prefix })
    .get("/models", listModels)
    .post("/chat/completions", ({ body, request }) => handle("chat", body, request), { body: ChatCompletionBody })
    .post("/completions", ({ body, request }) => handle("text_completion", body, request), { body: CompletionBody })
    .post("/embeddings", ({ body, request }) => handle("embedding", body, request), { body: EmbeddingBody })
    .post("/responses", ({ body, request }) => handle("responses", body, request), { body: ResponsesBody });
}
