import { geminiBatches } from "../../batches/gemini";
import { isProviderObjectOperation, type Operation } from "../../../upstream/operations";
import { GEMINI_OBJECT_OPERATIONS } from "../../../upstream/provider-objects";
import { badRequest } from "../../../http/errors";
import { contentImagesOf, geminiImageRequestOf, type ImagesReply, imageCount, isImagenModel, joinedImagesReplies, withInlineImages } from "../../formats/genai/gemini-images";
import { imagenImagesOf, imagenRequestOf } from "../../formats/genai/imagen";
import { imagesResponse, jsonReply, replyJson } from "../media-replies";
import { providerObjectCall } from "../provider-object-call";
import type { FanOut, ProviderAdapter, UpstreamCall, UpstreamSuccess, UpstreamTarget } from "../../../upstream/adapter";
import { baseUrlOf, keyHeaders } from "./keys";

const GENAI_OPERATIONS: ReadonlySet<Operation> = new Set(["chat", "embedding", "count_tokens", "live", "image_generation", "image_edit", "video_generation"]);

/** The resource a model id names: `models/{id}`, or a tuned model as written. */
const modelResource = (model: string) => (model.startsWith("tunedModels/") || model.startsWith("models/") ? model : `models/${model}`);

/** The `:method` suffix of a Gemini call; an embedding body's shape says whether it is a batch. */
export function genaiMethod(operation: Operation, body: Record<string, unknown>, stream: boolean): string {
  switch (operation) {
    case "chat":
      return stream ? "streamGenerateContent?alt=sse" : "generateContent";
    case "embedding":
      return Array.isArray(body.requests) ? "batchEmbedContents" : "embedContent";
    case "count_tokens":
      return "countTokens";
    default:
      throw new Error(`Gemini offers no ${operation}`);
  }
}

/** Gemini wants the model named inside batch and nested requests too; the client's naming (`provider/model`) is replaced. */
function withModelInside(body: Record<string, unknown>, resource: string): Record<string, unknown> {
  const { model: _clientModel, ...rest } = body;
  if (Array.isArray(rest.requests)) return { ...rest, requests: (rest.requests as Array<Record<string, unknown>>).map((request) => ({ ...request, model: resource })) };
  if (rest.generateContentRequest && typeof rest.generateContentRequest === "object") return { ...rest, generateContentRequest: { ...rest.generateContentRequest, model: resource } };
  return rest;
}

/** The API's host, above the versioned root: uploads live at `{host}/upload/v1beta`, files at `{host}/v1beta/files`. */
const hostOf = (target: UpstreamTarget) => baseUrlOf(target).replace(/\/v\d\w*$/, "");

/** The key, with the client's `x-goog-upload-*` headers: the resumable protocol travels in them. */
function uploadHeaders(target: UpstreamTarget): Record<string, string> {
  const headers = keyHeaders(target);
  for (const [name, value] of target.clientHeaders) if (name.startsWith("x-goog-upload-")) headers[name] = value;
  return headers;
}

/** An image model's answer (Imagen's predictions, or a Gemini image model's content), read back as the OpenAI images reply the gateway's image generation answers. */
export async function imagesReply(reply: UpstreamSuccess, model: string): Promise<UpstreamSuccess> {
  if (isImagenModel(model)) return jsonReply(reply, imagesResponse(imagenImagesOf(await replyJson(reply))));
  const { images, usage } = contentImagesOf(await replyJson(reply));
  return jsonReply(reply, { ...imagesResponse(images), ...(usage ? { usage } : {}) });
}

/** The operations that answer with images, in OpenAI's shape. */
export const IMAGE_OPERATIONS: ReadonlySet<Operation> = new Set(["image_generation", "image_edit"]);

/** The method and body of an image generation or edit: Imagen's `:predict`, or a generateContent asking a Gemini image model for one. */
export function imageCallOf(operation: Operation, model: string, body: Record<string, unknown>) {
  if (!isImagenModel(model)) return { method: "generateContent", body: geminiImageRequestOf(body, operation === "image_edit") };
  if (operation === "image_edit") throw badRequest(`${model} does not edit images here: Gemini's image models do (gemini-2.5-flash-image)`, "model", "caller_unsupported_operation");
  return { method: "predict", body: imagenRequestOf(body) };
}

/** Gemini's image models make one image a call: a request for `n` is `n` calls, their images answered together. */
/** OpenAI images replies of several one-image calls as one reply. */
export const joinImageReplies: FanOut["join"] = async (_operation, replies) => jsonReply(replies[0]!, joinedImagesReplies(await Promise.all(replies.map((reply) => replyJson<ImagesReply>(reply)))));

export const imageFanOut: FanOut = {
  copies: (operation, body, model) => (IMAGE_OPERATIONS.has(operation) && !isImagenModel(model) ? imageCount(body) : 1),
  join: joinImageReplies,
};

/** An image edit's form, its images read inline for the generateContent that changes them. */
export const prepareImages = (operation: Operation, body: Record<string, unknown>) => (operation === "image_edit" ? withInlineImages(body) : undefined);

/**
 * The Live API's WebSocket, as a call: `{host}/ws/…BidiGenerateContent`, the key in its header; the
 * client's `setup` message, naming the provider's model, is what the provider gets first.
 */
function liveHandshake(target: UpstreamTarget, body: Record<string, unknown>): UpstreamCall {
  const setup = (body.setup ?? {}) as Record<string, unknown>;
  return {
    url: `${hostOf(target)}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`,
    method: "GET",
    headers: keyHeaders(target, false),
    body: JSON.stringify({ ...body, setup: { ...setup, model: modelResource(target.model) } }),
  };
}

/** Google AI (generativelanguage): `{base}/models/{model}:method`, the key in `x-goog-api-key`; the files and operations it keeps; the Live API. */
export const gemini: ProviderAdapter = {
  format: "genai",
  operations: new Set<Operation>([...GENAI_OPERATIONS, ...geminiBatches.operations, ...GEMINI_OBJECT_OPERATIONS]),
  keyOptional: false,
  listModels: {
    call: (target) => ({ url: `${baseUrlOf(target)}/models?pageSize=1000`, method: "GET", headers: keyHeaders(target, false) }),
    ids: (body) => ((body as { models?: Array<{ name?: unknown }> }).models ?? []).map((model) => model.name).filter((name): name is string => typeof name === "string").map((name) => name.replace(/^models\//, "")),
  },
  batches: geminiBatches,
  prepareBody: prepareImages,
  async readReply(operation, reply, target) {
    return IMAGE_OPERATIONS.has(operation) ? imagesReply(reply, target.model) : reply;
  },
  fanOut: imageFanOut,
  buildCall(operation, target, body, stream) {
    if (isProviderObjectOperation(operation)) return providerObjectCall(hostOf(target), operation, body, uploadHeaders(target));
    if (operation === "live") return liveHandshake(target, body);
    const resource = modelResource(target.model);
    // The gateway's image generation and edit are OpenAI's shape; Imagen's is `:predict`, a Gemini image model's a generateContent.
    if (IMAGE_OPERATIONS.has(operation)) {
      const image = imageCallOf(operation, target.model, body);
      return { url: `${baseUrlOf(target)}/${resource}:${image.method}`, headers: keyHeaders(target), body: JSON.stringify(image.body) };
    }
    // Veo: an operation that makes the video, answered at once and polled by its name (gemini_operation_get).
    if (operation === "video_generation") return { url: `${baseUrlOf(target)}/${resource}:predictLongRunning`, headers: keyHeaders(target), body: JSON.stringify(withModelInside(body, resource)) };
    return { url: `${baseUrlOf(target)}/${resource}:${genaiMethod(operation, body, stream)}`, headers: keyHeaders(target), body: JSON.stringify(withModelInside(body, resource)) };
  },
};
