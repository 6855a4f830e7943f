import type { BatchApi } from "../../../upstream/batch-api";
import { isProviderObjectOperation, type Operation } from "../../../upstream/operations";
import { OPENAI_OBJECT_OPERATIONS, RESPONSE_OBJECT_OPERATIONS } from "../../../upstream/provider-objects";
import { multipartBody, withoutContentType } from "../multipart";
import { withMintedBearer } from "../oauth";
import { type DefinedFieldsOptions, onlyDefinedChatFields } from "./defined-fields";
import { providerObjectCall } from "../provider-object-call";
import type { ModelListing, ProviderAdapter, UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";

export const OPENAI_PATHS: Partial<Record<Operation, string>> = {
  chat: "/chat/completions",
  text_completion: "/completions",
  embedding: "/embeddings",
  responses: "/responses",
  input_tokens: "/responses/input_tokens",
  speech: "/audio/speech",
  transcription: "/audio/transcriptions",
  translation: "/audio/translations",
  image_generation: "/images/generations",
  image_edit: "/images/edits",
  moderation: "/moderations",
  rerank: "/rerank",
};

/**
 * The Realtime API's WebSocket handshake, as a call: `{root}/realtime?model=…`, or `?call_id=…`
 * for the sideband connection to a call (WebRTC, SIP) the body names; the key in its headers.
 */
export function realtimeHandshake(root: string, model: string, body: Record<string, unknown>, headers: Record<string, string>): UpstreamCall {
  const query = typeof body.call_id === "string" ? `call_id=${encodeURIComponent(body.call_id)}` : `model=${encodeURIComponent(model)}`;
  return { url: `${root}/realtime?${query}`, method: "GET", headers: withoutContentType(headers) };
}

/** What every OpenAI-compatible server answers; the others are listed per provider. */
export const TEXT_OPERATIONS: readonly Operation[] = ["chat", "text_completion", "embedding", "responses"];
/** What OpenAI's API (and Azure's) keeps beyond responses: conversations, containers, vector stores, uploads, fine-tuning jobs... */
export { OPENAI_OBJECT_OPERATIONS };
/** OpenAI's own API beyond text. */
export const OPENAI_MEDIA_OPERATIONS: readonly Operation[] = ["input_tokens", "speech", "transcription", "translation", "image_generation", "image_edit", "moderation", "realtime"];
/** Operations whose requests are multipart forms (an audio file, images to edit). */
const MULTIPART_OPERATIONS: ReadonlySet<Operation> = new Set(["transcription", "translation", "image_edit"]);

export function requireBaseUrl(target: UpstreamTarget): string {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "");
}

/** Headers of a call with the key as bearer; a key without a value may mint one in `authorizeCall`. */
export function bearerHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
  if (target.key?.secret) headers.authorization = `Bearer ${target.key.secret}`;
  return headers;
}

/** Serializes the client's body with the upstream model id in place of `provider/model`. */
export const withModel = (body: Record<string, unknown>, model: string) => JSON.stringify({ ...body, model });

/** The body and headers of an OpenAI-shaped call: multipart for audio files and image edits, JSON for the rest. */
export function openAIPayload(operation: Operation, body: Record<string, unknown>, model: string, headers: Record<string, string>): Pick<UpstreamCall, "body" | "headers"> {
  if (MULTIPART_OPERATIONS.has(operation)) return { body: multipartBody(body, { model }), headers: withoutContentType(headers) };
  return { body: withModel(body, model), headers };
}

/** `GET .../models`, answered in OpenAI's list shape. */
export function openAIModelListing(urlOf: (target: UpstreamTarget) => string, headersOf: (target: UpstreamTarget) => Record<string, string> = bearerHeaders): ModelListing {
  return {
    call: (target) => ({ url: urlOf(target), method: "GET", headers: withoutContentType(headersOf(target)) }),
    ids: (body) => ((body as { data?: Array<{ id?: unknown }> }).data ?? []).map((model) => model.id).filter((id): id is string => typeof id === "string"),
  };
}

export interface OpenAICompatibleOptions {
  keyOptional?: boolean;
  /** The API root a key names (self-hosted servers), in place of the provider's base URL. */
  baseUrlFromKey?: (target: UpstreamTarget) => string | undefined;
  /** Operations beyond the text ones. */
  extraOperations?: readonly Operation[];
  batches?: BatchApi;
  /** False for servers without OpenAI's Responses API: a Responses call reaches them as a chat. */
  responsesApi?: boolean;
  /** The server keeps what OpenAI's API keeps (conversations, containers, vector stores...), not only its responses. */
  keepsOpenAIObjects?: boolean;
  /** What the server needs changed in every body it gets (Mistral's, for one). */
  adjustBody?: (operation: Operation, body: Record<string, unknown>) => Record<string, unknown>;
  /** The server refuses fields OpenAI's API does not define (see defined-fields.ts). */
  definedFieldsOnly?: boolean;
  /** The server takes earlier turns' `reasoning_content` back, and may need it (DeepSeek). */
  echoesReasoning?: boolean;
}

/** A translated chat as a hosted OpenAI-format API takes it. */
export const definedFieldsOf = (operation: Operation, body: Record<string, unknown>, model: string, options?: DefinedFieldsOptions) =>
  operation === "chat" ? onlyDefinedChatFields(body, model, options) : body;

/**
 * OpenAI and every provider that speaks its wire format at `{base_url}/chat/completions` etc. A
 * key's value is sent as bearer; a key without one mints it from its `oauth_key_config`.
 */
export function openAICompatible(options: OpenAICompatibleOptions = {}): ProviderAdapter {
  const rootOf = (target: UpstreamTarget) => (options.baseUrlFromKey?.(target) ?? requireBaseUrl(target)).replace(/\/+$/, "");
  const text = options.responsesApi === false ? TEXT_OPERATIONS.filter((operation) => operation !== "responses") : TEXT_OPERATIONS;
  const kept = options.responsesApi === false ? [] : options.keepsOpenAIObjects ? OPENAI_OBJECT_OPERATIONS : RESPONSE_OBJECT_OPERATIONS;
  const operations = new Set<Operation>([...text, ...kept, ...(options.extraOperations ?? []), ...(options.batches?.operations ?? [])]);
  return {
    format: "openai",
    operations,
    keyOptional: options.keyOptional ?? false,
    buildCall(operation, target, body) {
      if (isProviderObjectOperation(operation)) return providerObjectCall(rootOf(target), operation, body, bearerHeaders(target));
      if (operation === "realtime") return realtimeHandshake(rootOf(target), target.model, body, bearerHeaders(target));
      const sent = options.adjustBody ? options.adjustBody(operation, body) : body;
      return { url: `${rootOf(target)}${OPENAI_PATHS[operation]!}`, ...openAIPayload(operation, sent, target.model, bearerHeaders(target)) };
    },
    ...(options.definedFieldsOnly ? { translatedBody: (operation, body, model) => definedFieldsOf(operation, body, model, { keepReasoning: options.echoesReasoning }) } : {}),
    authorizeCall: (call, target) => withMintedBearer(call, target),
    listModels: openAIModelListing((target) => `${rootOf(target)}/models`),
    batches: options.batches,
  };
}

/** Self-hosted servers (Ollama, vLLM, SGLang) take their address from the key's `url`, which names the server root. */
export const serverUrlFromKey = (url: string | undefined) => (url ? `${url.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1` : undefined);
