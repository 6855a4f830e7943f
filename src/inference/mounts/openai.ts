import { Elysia } from "elysia";
import { notFound } from "../../http/errors";
import { backgroundRunOf, startInBackground } from "../kept-responses/background-runs";
import { batchRoutes } from "../batches/routes";
import type { Inference } from "../handle";
import { modelInPath } from "../model-ref";
import { visibleModels, visibleServedModel } from "../visible-models";
import { speechUsage } from "../request-usage";
import {
  CHAT_FIELDS_A_PROMPT_GIVES,
  CompletionBody,
  DEFAULT_MODERATION_MODEL,
  EmbeddingBody,
  ImageBody,
  ImageEditForm,
  ModerationBody,
  openAIHandler,
  PromptedChatBody,
  PromptedResponsesBody,
  RerankBody,
  RESPONSES_FIELDS_A_PROMPT_GIVES,
  ResponsesBody,
  SpeechBody,
  TranscriptionForm,
  TranslationForm,
} from "./openai-bodies";
import { providerObjectRoutes } from "./provider-objects";
import { ListedModel, ModelList, withModelFacts } from "../model-facts";
import { replies, sentReplies } from "../../http/replies";
import { chatCompletionReply } from "./chat-completion-reply";
import { openRealtimeSession } from "../realtime/session";
import { promptFieldTransform, promptOptionsOf, requireUnprompted } from "./prompt-field";

/**
 * The OpenAI-format surface: `/v1`, and the same routes under `/openai/v1` and the framework
 * mounts. `mountProvider` answers bare model names on a provider mount.
 */
export function openAIMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = openAIHandler(inference, mountProvider);

  const listModels = ({ request }: { request: Request }) => ({
    object: "list" as const,
    data: visibleModels(inference, request.headers).map(({ id, model, provider }) => withModelFacts(inference, provider, model, { id, object: "model" as const, created: 0, owned_by: provider.name })),
  });

  return new Elysia({ name: `openai-mount:${prefix}`, prefix })
    .get("/models", listModels, replies({ 200: ModelList }, { summary: "List models", description: "Every model a provider key here serves that the caller's virtual key may use, with its context window and list prices where known." }))
    .get(
      "/models/*",
      ({ params, request }) => {
        const model = modelInPath(params["*"]);
        const served = visibleServedModel(inference, request.headers, model, mountProvider);
        if (!served) throw notFound(`The model '${model}' does not exist or no key here serves it`, "caller_model_not_found");
        const entry = { id: model, object: "model" as const, created: 0, owned_by: served.provider };
        const provider = inference.providers.get(served.provider);
        return provider ? withModelFacts(inference, provider, served.model, entry) : entry;
      },
      replies({ 200: ListedModel }, { summary: "Get a model" }),
    )
    .post("/chat/completions", ({ body, request }) => handle("chat", requireUnprompted(body, CHAT_FIELDS_A_PROMPT_GIVES), request, promptOptionsOf(request)), {
      transform: promptFieldTransform(inference, "chat"),
      body: PromptedChatBody,
      ...sentReplies({ 200: chatCompletionReply }, { summary: "Create a chat completion", description: "OpenAI's chat format to any configured provider: `model` is `provider/model`; `fallbacks` are tried in order when it fails." }),
    })
    .post("/completions", ({ body, request }) => handle("text_completion", body, request), { body: CompletionBody })
    .post("/embeddings", ({ body, request }) => handle("embedding", body, request), { body: EmbeddingBody })
    .post(
      "/responses",
      async ({ body: sent, request }) => {
        const body = requireUnprompted(sent, RESPONSES_FIELDS_A_PROMPT_GIVES);
        const run = backgroundRunOf(inference, request, body, mountProvider);
        return run ? startInBackground(inference.background!, request, run) : handle("responses", body, request, promptOptionsOf(request));
      },
      { transform: promptFieldTransform(inference, "responses"), body: PromptedResponsesBody },
    )
    // A WebSocket: the Realtime API's speech-to-speech sessions, relayed to the provider.
    .get("/realtime", ({ request, server, query }) => openRealtimeSession(inference, request, server!, { model: query.model, param: "model", callId: query.call_id, mountProvider }))
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
