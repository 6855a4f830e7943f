import { Elysia, t } from "elysia";
import { configuredModels } from "../../provider-registry/model-listing";
import { batchRoutes } from "../batches/routes";
import type { Usage } from "../canonical";
import { notFound } from "../../http/errors";
import { runsInBackground, startInBackground } from "../background-runs";
import { fallbacksOf, handleInference, type Inference } from "../handle";
import { modelInPath, servedModel } from "../model-ref";
import type { Operation } from "../operations";
import { speechUsage } from "../request-usage";
import { providerObjectRoutes } from "./provider-objects";

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
const SpeechBody = t.Object({ ...gatewayFields, input: t.String({ minLength: 1 }), voice: t.Union([t.String({ minLength: 1 }), t.Object({ id: t.String() }, open)]) }, open);
const ImageBody = t.Object({ ...gatewayFields, prompt: t.String({ minLength: 1 }) }, open);
const RerankBody = t.Object({ ...gatewayFields, query: t.String(), documents: t.Array(t.Unknown(), { minItems: 1 }), top_n: t.Optional(t.Integer({ minimum: 1 })) }, open);
/** Multipart: form fields are strings, the audio a file. */
const formFields = { model: t.String({ minLength: 1 }), fallbacks: t.Optional(t.Union([t.String(), t.Array(t.String())])) };
const TranscriptionForm = t.Object({ ...formFields, file: t.File(), stream: t.Optional(t.String()) }, open);
const TranslationForm = t.Object({ ...formFields, file: t.File() }, open);
/** The images to edit come as `image` or `image[]`, one file or several, as the SDKs send them; the provider checks them. */
const ImageEditForm = t.Object({ ...formFields, prompt: t.String({ minLength: 1 }), stream: t.Optional(t.String()) }, open);
/** OpenAI's API picks its moderation model when none is named; the gateway names that one. */
const ModerationBody = t.Object({ ...gatewayFields, model: t.Optional(t.String({ minLength: 1 })), input: t.Union([t.String(), t.Array(t.Unknown(), { minItems: 1 })]) }, open);
const DEFAULT_MODERATION_MODEL = "omni-moderation-latest";

type OpenAIBody = { model: string; fallbacks?: string[] | string; stream?: boolean | string } & Record<string, unknown>;

interface CallOptions {
  stream?: boolean;
  usage?: Usage;
}

/**
 * The OpenAI-format surface: `/v1`, and the same routes under `/openai/v1` and the framework
 * mounts. `mountProvider` answers bare model names on a provider mount.
 */
export function openAIMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = (operation: Operation, { fallbacks, ...body }: OpenAIBody, request: Request, options: CallOptions = {}) =>
    handleInference(inference, {
      operation,
      format: "openai",
      body,
      model: body.model,
      fallbacks: fallbacksOf({ fallbacks: typeof fallbacks === "string" ? [fallbacks] : fallbacks }, request.headers),
      stream: options.stream ?? (operation !== "embedding" && body.stream === true),
      request,
      mountProvider,
      usage: options.usage,
    });

  const listModels = () => ({
    object: "list",
    data: configuredModels(inference.providers).map(({ id, provider }) => ({ id, object: "model", created: 0, owned_by: provider.name })),
  });

  return new Elysia({ name: `openai-mount:${prefix}`, prefix })
    .get("/models", listModels)
    .get("/models/*", ({ params }) => {
      const model = modelInPath(params["*"]);
      const served = servedModel(model, inference.providers, mountProvider);
      if (!served) throw notFound(`The model '${model}' does not exist or no key here serves it`, "caller_model_not_found");
      return { id: model, object: "model", created: 0, owned_by: served.provider };
    })
    .post("/chat/completions", ({ body, request }) => handle("chat", body, request), { body: ChatCompletionBody })
    .post("/completions", ({ body, request }) => handle("text_completion", body, request), { body: CompletionBody })
    .post("/embeddings", ({ body, request }) => handle("embedding", body, request), { body: EmbeddingBody })
    .post(
      "/responses",
      ({ body, request }) => (runsInBackground(inference, request, body, mountProvider) ? startInBackground(inference.background!, request, body) : handle("responses", body, request)),
      { body: ResponsesBody },
    )
    .post("/responses/input_tokens", ({ body, request }) => handle("input_tokens", body, request, { stream: false }), { body: ResponsesBody })
    .use(providerObjectRoutes(inference, mountProvider))
    .post("/rerank", ({ body, request }) => handle("rerank", body, request, { stream: false }), { body: RerankBody })
    // Audio is relayed as it arrives, whether plain bytes or `stream_format: "sse"` events.
    .post("/audio/speech", async ({ body, request }) => handle("speech", body, request, { stream: true, usage: await speechUsage(body.input) }), { body: SpeechBody })
    .post("/audio/transcriptions", ({ body, request }) => handle("transcription", body, request, { stream: body.stream === "true" }), { body: TranscriptionForm })
    .post("/audio/translations", ({ body, request }) => handle("translation", body, request, { stream: false }), { body: TranslationForm })
    .post("/images/generations", ({ body, request }) => handle("image_generation", body, request), { body: ImageBody })
    .post("/images/edits", ({ body, request }) => handle("image_edit", body, request, { stream: body.stream === "true" }), { body: ImageEditForm })
    .post(
      "/moderations",
      ({ body, request }) => handle("moderation", { ...body, model: body.model ?? (mountProvider ? DEFAULT_MODERATION_MODEL : `openai/${DEFAULT_MODERATION_MODEL}`) }, request, { stream: false }),
      { body: ModerationBody },
    )
    .use(batchRoutes(inference, mountProvider));
}
