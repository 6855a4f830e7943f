import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import { badRequest, notFound } from "../../http/errors";
import { violationMessage } from "../../http/validation-sentence";
import type { RuntimeProvider } from "../../provider-registry/runtime";
import { withGeminiCacheName } from "../formats/genai/cached-content-names";
import { imagenReplyOf, openAIImageRequestOf } from "../formats/genai/imagen";
import { BatchEmbedContentsRequest, CountTokensRequest, EmbedContentRequest, GenerateContentRequest, PredictImagesRequest, PredictVideosRequest } from "../formats/genai/schemas";
import { batchEmbedOfPredict, isEmbeddingPredict, PredictEmbeddingsRequest, predictionsOf, withEmbedConfigLifted } from "../formats/genai/vertex-embeddings";
import { fallbacksOf, handleInference, type Inference } from "../handle";
import { modelInPath } from "../model-ref";
import { visibleModels, visibleServedModel } from "../visible-models";
import { openGeminiLiveSession } from "../realtime/gemini-live";
import type { Operation } from "../../upstream/operations";
import { geminiObjectRoutes, isFetchPredictOperation, videoOperationPolls } from "./gemini-objects";
import { rewritten, withProviderInName } from "./genai-replies";
import { vertexModeCacheRoutes } from "./vertex-caches";

interface Method {
  operation: Operation;
  stream: boolean;
  check: ReturnType<typeof TypeCompiler.Compile<TSchema>>;
}

const method = (operation: Operation, schema: TSchema, stream = false): Method => ({ operation, stream, check: TypeCompiler.Compile(schema) });

/** Where a bare Google model goes on the paths `@google/genai` calls in Vertex AI mode, if configured. */
const VERTEX_PROVIDER = "vertex";

/** The `:method` a path may end with; the SDK embeds through batchEmbedContents, so it is served too. */
const METHODS: Record<string, Method> = {
  generateContent: method("chat", GenerateContentRequest),
  streamGenerateContent: method("chat", GenerateContentRequest, true),
  embedContent: method("embedding", EmbedContentRequest),
  batchEmbedContents: method("embedding", BatchEmbedContentsRequest),
  countTokens: method("count_tokens", CountTokensRequest),
  // Imagen, as `generateImages` calls it: OpenAI's image generation underneath, on any provider.
  predict: method("image_generation", PredictImagesRequest),
  // Veo, as `generateVideos` calls it: answered with an operation, polled on the gemini-objects routes.
  predictLongRunning: method("video_generation", PredictVideosRequest),
};

/** Vertex AI mode's `:predict` for a text-embedding model. */
const PREDICT_EMBEDDINGS = TypeCompiler.Compile(PredictEmbeddingsRequest);

/** `{model}:{method}`, where the model may be `provider/model`, its slash written as is or as %2F. */
function parseModelPath(rest: string): { model: string; name: string; method: Method } {
  const match = /^(.+):([A-Za-z]+)$/.exec(decodeURIComponent(rest));
  const spec = match && Object.hasOwn(METHODS, match[2]!) ? METHODS[match[2]!] : undefined;
  if (!match || !spec) throw notFound(`no Gemini method at models/${rest}; expected {model}:${Object.keys(METHODS).join("|")}`, "caller_route_not_found");
  return { model: match[1]!, name: match[2]!, method: spec };
}

function validate(check: Method["check"], body: unknown, name: string): Record<string, unknown> {
  const error = check.Errors(body).First();
  if (error) {
    const { field, message } = violationMessage(error);
    throw badRequest(message, field || "body");
  }
  const fields = body as Record<string, unknown>;
  if (name === "countTokens" && !fields.contents && !fields.generateContentRequest) throw badRequest("countTokens needs contents or generateContentRequest", "contents");
  const [video] = name === "predictLongRunning" ? (fields.instances as Array<Record<string, unknown>>) : [];
  if (video && !video.prompt && !video.image) throw badRequest("a video is made from a prompt, an image or both: instances[0] has neither", "instances[0].prompt");
  return fields;
}

/** An image generation answers in OpenAI's shape; a client that called Imagen's `predict` expects its predictions. */
const asPredictions = (response: Response) => rewritten(response, imagenReplyOf);

/** A translated embedding answers in the batch shape; a client that called embedContent expects `embedding`. */
const asSingleEmbedding = (response: Response) => rewritten(response, (body: { embeddings?: unknown[] }) => (Array.isArray(body.embeddings) ? { embedding: body.embeddings[0] } : body));

function methodsOf(provider: RuntimeProvider): string[] {
  const { operations } = provider.adapter;
  return [...(operations.has("chat") ? ["generateContent", "streamGenerateContent"] : []), ...(operations.has("embedding") ? ["embedContent", "batchEmbedContents"] : []), ...(operations.has("image_generation") ? ["predict"] : []), ...(operations.has("video_generation") ? ["predictLongRunning"] : []), "countTokens"];
}

/** A model in Gemini's shape, with the token limits the catalogue knows under Gemini's names. */
function geminiModel(inference: Inference, provider: RuntimeProvider, id: string, model: string) {
  const facts = inference.modelFacts?.(provider, model);
  return {
    name: `models/${id}`,
    displayName: model,
    supportedGenerationMethods: methodsOf(provider),
    ...(facts?.context_window ? { inputTokenLimit: facts.context_window } : {}),
    ...(facts?.max_output_tokens ? { outputTokenLimit: facts.max_output_tokens } : {}),
  };
}

function listModels(inference: Inference, headers: Headers) {
  return { models: visibleModels(inference, headers).map(({ id, model, provider }) => geminiModel(inference, provider, id, model)) };
}

/**
 * Gemini's REST surface (`/v1beta/models/{model}:method`, as `@google/genai` calls it, and the
 * `…/publishers/{publisher}/models/{model}:method` paths it calls in Vertex AI mode). The model
 * in the path may name any provider (`openai/gpt-4o`), translated where it speaks another format;
 * a bare name goes to `mountProvider`. Fallbacks ride in `fallbacks` or `x-gw-fallbacks`. The
 * files the provider keeps are served beside (gemini-objects.ts).
 */
export function genaiMount(prefix: string, inference: Inference, mountProvider?: string) {
  const generate = async ({ params, body, request }: { params: Record<"*", string>; body: unknown; request: Request }, provider = mountProvider) => {
    const { model, name, method: spec } = parseModelPath(params["*"]);
    const { fallbacks, ...rest } = validate(spec.check, body ?? {}, name);
    const images = spec.operation === "image_generation";
    const response = await handleInference(inference, {
      operation: spec.operation,
      format: images ? "openai" : "genai",
      body: images ? openAIImageRequestOf(rest) : rest,
      model,
      fallbacks: fallbacksOf({ fallbacks }, request.headers),
      stream: spec.stream,
      request,
      mountProvider: provider,
    });
    if (images) return asPredictions(response);
    if (spec.operation === "video_generation") return withProviderInName(response);
    return name === "embedContent" ? asSingleEmbedding(response) : response;
  };

  /** `models.get`: a model an enabled key serves, in Gemini's shape; 404 otherwise. */
  const getModel = ({ params, request }: { params: Record<"*", string>; request: Request }, provider = mountProvider) => {
    const model = modelInPath(params["*"]).replace(/^models\//, "");
    const served = visibleServedModel(inference, request.headers, model, provider);
    if (!served) throw notFound(`models/${model} is not found, or no key here serves it`, "caller_model_not_found");
    return geminiModel(inference, inference.providers.get(served.provider)!, model, served.model);
  };

  // `@google/genai` with `vertexai: true` writes `provider/model` as publisher and model; a Google
  // model goes to Vertex AI where it is configured, else to the mount's provider, which serves the same models.
  const publishedModel = ({ publisher, "*": model }: Record<"publisher" | "*", string>) => (publisher === "google" ? model : `${publisher}/${model}`);
  const vertexModeProvider = () => (inference.providers.get(VERTEX_PROVIDER) ? VERTEX_PROVIDER : mountProvider);

  /** A model method in Vertex AI mode; its embeddings come in Vertex's shapes (vertex-embeddings.ts), its cached content by Vertex's name. */
  const generateOnVertex = async ({ params, body: sent, request }: { params: Record<"publisher" | "*", string>; body: unknown; request: Request }) => {
    const body = withGeminiCacheName(sent);
    const path = publishedModel(params);
    const provider = vertexModeProvider();
    const colon = path.lastIndexOf(":");
    const [model, name] = [path.slice(0, colon), path.slice(colon + 1)];
    if (name === "predict" && isEmbeddingPredict(body)) {
      const texts = validate(PREDICT_EMBEDDINGS, body, name) as PredictEmbeddingsRequest;
      return rewritten(await generate({ params: { "*": `${model}:batchEmbedContents` }, body: batchEmbedOfPredict(texts), request }, provider), predictionsOf);
    }
    return generate({ params: { "*": path }, body: name === "embedContent" ? withEmbedConfigLifted(body) : body, request }, provider);
  };

  const polls = videoOperationPolls(inference, mountProvider);
  // Vertex AI mode in express mode polls a video at `/v1/models/{model}:fetchPredictOperation` when the client asks for API version v1: the Gemini API's path.
  const generateOrPoll = (call: Parameters<typeof generate>[0]) => (isFetchPredictOperation(call.params["*"]) ? polls.fetchPredictOperation(call) : generate(call));

  const app = new Elysia({ name: `genai-mount:${prefix}`, prefix });
  for (const version of ["v1beta", "v1"]) app.get(`/${version}/models`, ({ request }) => listModels(inference, request.headers)).get(`/${version}/models/*`, getModel).post(`/${version}/models/*`, generateOrPoll);
  for (const version of ["v1beta1", "v1"]) {
    app
      .post(`/${version}/projects/:project/locations/:location/publishers/:publisher/models/*`, generateOnVertex)
      .post(`/${version}/publishers/:publisher/models/*`, generateOnVertex)
      // Vertex AI mode's models.list and models.get, which name no project.
      .get(`/${version}/publishers/:publisher/models`, ({ request }) => listModels(inference, request.headers))
      .get(`/${version}/publishers/:publisher/models/*`, ({ params, request }) => getModel({ params: { "*": publishedModel(params) }, request }, vertexModeProvider()));
  }
  // The Live API's WebSocket, where `@google/genai` opens it: beside the versioned roots.
  for (const version of ["v1beta", "v1alpha"]) app.get(`/ws/google.ai.generativelanguage.${version}.GenerativeService.BidiGenerateContent`, ({ request, server }) => openGeminiLiveSession(inference, request, server!, mountProvider));
  return app.use(geminiObjectRoutes(prefix, polls)).use(vertexModeCacheRoutes(inference, vertexModeProvider));
}
