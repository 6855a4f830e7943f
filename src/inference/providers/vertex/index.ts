/**
 * Vertex AI: Gemini models under `publishers/google` in the genai format (embeddings through
 * `:predict`, read back as Gemini's; Veo's operations as the Gemini API's,
 * formats/genai/vertex-video-operation.ts; cached contents named as the Gemini API names them,
 * formats/genai/cached-content-names.ts), Anthropic's Claude models under `publishers/anthropic`
 * in the Anthropic format (rawPredict), all scoped to the key's project and region, authenticated
 * with a service account's access token.
 */
import { badRequest, GatewayError } from "../../../http/errors";
import { cachedContentsNamed, GEMINI_NAMING, vertexCacheName, vertexModelName } from "../../formats/genai/cached-content-names";
import { geminiOperationOf } from "../../formats/genai/vertex-video-operation";
import type { Operation } from "../../../upstream/operations";
import type { ProviderObjectBody, ProviderObjectOperation } from "../../../upstream/provider-objects";
import { genaiMethod, IMAGE_OPERATIONS, imageCallOf, imageFanOut, imagesReply, prepareImages } from "../gemini";
import { jsonReply, replyJson } from "../media-replies";
import { providerObjectCall } from "../provider-object-call";
import type { ProviderAdapter, UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";
import { accessTokenFor, parseServiceAccount } from "./access-token";
import { batchEmbedReply, predictBody } from "./embedding";
import { polledOperation } from "./veo";

const DEFAULT_REGION = "us-central1";
const ANTHROPIC_VERSION = "vertex-2023-10-16";

const isAnthropicModel = (model: string) => model.startsWith("claude");

/** The Gemini API's cached-content calls, which Vertex answers under the key's location. */
const CACHE_OPERATIONS: ReadonlySet<Operation> = new Set<ProviderObjectOperation>(["gemini_cache_create", "gemini_cache_list", "gemini_cache_get", "gemini_cache_update", "gemini_cache_delete"]);

const misconfigured = (message: string) => new GatewayError({ status: 500, errorType: "gateway_provider_misconfigured", message });

function projectOf(target: UpstreamTarget): string {
  const config = target.key?.config.vertex_key_config;
  const fromCredentials = () => {
    const account = config?.auth_credentials ? parseServiceAccount(config.auth_credentials) : undefined;
    return account && !(account instanceof GatewayError) ? account.project_id : undefined;
  };
  const project = config?.project_id || fromCredentials();
  if (!project) throw misconfigured("vertex key has no vertex_key_config.project_id");
  return project;
}

const regionOf = (target: UpstreamTarget) => target.key?.config.vertex_key_config?.region || DEFAULT_REGION;

/** The versioned API root: the provider's base_url, when set, else Google's host for the key's region. */
function apiRoot(target: UpstreamTarget): string {
  const region = regionOf(target);
  const host = region === "global" ? "aiplatform.googleapis.com" : `${region}-aiplatform.googleapis.com`;
  return (target.baseUrl ?? `https://${host}/v1`).replace(/\/+$/, "");
}

/** `projects/{project}/locations/{region}`: where the key's models live. */
const locationOf = (target: UpstreamTarget) => `projects/${encodeURIComponent(projectOf(target))}/locations/${encodeURIComponent(regionOf(target))}`;

/** `{root}/projects/{project}/locations/{region}`. */
const locationPath = (target: UpstreamTarget) => `${apiRoot(target)}/${locationOf(target)}`;

/**
 * The Live API's WebSocket on Vertex, as a call: `{host}/ws/…LlmBidiService/BidiGenerateContent`,
 * authorized like every call; the setup names the model by its full resource name.
 */
function liveHandshake(target: UpstreamTarget, body: Record<string, unknown>): UpstreamCall {
  const setup = (body.setup ?? {}) as Record<string, unknown>;
  const host = apiRoot(target).replace(/\/v\d\w*$/, "");
  return {
    url: `${host}/ws/google.cloud.aiplatform.v1.LlmBidiService/BidiGenerateContent`,
    method: "GET",
    headers: { ...target.network.extra_headers },
    body: JSON.stringify({ ...body, setup: { ...setup, model: `${locationOf(target)}/publishers/google/models/${target.model}` } }),
  };
}

/** Vertex's countTokens takes the generateContent fields at the top level and no model; a cached content is named under the key's location. */
function geminiBody(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, generateContentRequest, ...rest } = body;
  if (typeof rest.cachedContent === "string") rest.cachedContent = vertexCacheName(locationOf(target), rest.cachedContent);
  if (operation !== "count_tokens" || !generateContentRequest || typeof generateContentRequest !== "object") return rest;
  const { model: _nested, ...request } = generateContentRequest as Record<string, unknown>;
  return { ...rest, ...request };
}

/** A poll of Veo's operation, named as the Gemini API names it: Vertex's `:fetchPredictOperation` on its model. */
function operationPoll(target: UpstreamTarget, body: Record<string, unknown>) {
  const polled = polledOperation(body);
  if (!polled) throw badRequest("an operation is named models/{model}/operations/{id}", "name");
  const model = `publishers/google/models/${polled.model}`;
  return { url: `${locationPath(target)}/${model}:fetchPredictOperation`, body: { operationName: `${locationOf(target)}/${model}/operations/${polled.id}` } };
}

/**
 * Gemini models on Vertex: embeddings and Imagen's images through `:predict` (Gemini's image models
 * through generateContent), Veo's videos through
 * `:predictLongRunning`, the rest through the genai method of the same name.
 */
function geminiCall(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, stream: boolean) {
  if (operation === "gemini_operation_get") return operationPoll(target, body);
  const model = `${locationPath(target)}/publishers/google/models/${target.model}`;
  if (operation === "embedding") return { url: `${model}:predict`, body: predictBody(body) };
  if (IMAGE_OPERATIONS.has(operation)) {
    const image = imageCallOf(operation, target.model, body);
    return { url: `${model}:${image.method}`, body: image.body };
  }
  if (operation === "video_generation") return { url: `${model}:predictLongRunning`, body: geminiBody(operation, target, body) };
  return { url: `${model}:${genaiMethod(operation, body, stream)}`, body: geminiBody(operation, target, body) };
}

/** A cached-content call at `{location}/cachedContents[/{id}]`, the model it is made for named under the location too. */
function cacheCall(operation: ProviderObjectOperation, target: UpstreamTarget, body: ProviderObjectBody, headers: Record<string, string>): UpstreamCall {
  const json = body.json as { model?: unknown } | undefined;
  const model = typeof json?.model === "string" ? { model: vertexModelName(locationOf(target), json.model) } : {};
  return providerObjectCall(locationPath(target), operation, { ...body, path: body.path.replace(/^\/v1beta/, ""), json: json && { ...json, ...model } }, headers);
}

/** Claude on Vertex: the model lives in the URL, the API version in the body. */
function anthropicCall(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, stream: boolean) {
  const models = `${locationPath(target)}/publishers/anthropic/models`;
  const { model: _model, ...rest } = body;
  if (operation === "count_tokens") return { url: `${models}/count-tokens:rawPredict`, body: { ...rest, model: target.model } };
  return { url: `${models}/${target.model}:${stream ? "streamRawPredict" : "rawPredict"}`, body: { ...rest, anthropic_version: ANTHROPIC_VERSION } };
}

async function bearerFor(target: UpstreamTarget): Promise<string | GatewayError> {
  if (target.key?.secret) return target.key.secret;
  const credentials = target.key?.config.vertex_key_config?.auth_credentials;
  if (!credentials) return misconfigured("vertex key has neither a value nor vertex_key_config.auth_credentials");
  const account = parseServiceAccount(credentials);
  return account instanceof GatewayError ? account : accessTokenFor(account, target.outbound);
}

export const vertex: ProviderAdapter = {
  format: "genai",
  formatFor: (model) => (isAnthropicModel(model) ? "anthropic" : "genai"),
  operations: new Set<Operation>(["chat", "embedding", "count_tokens", "live", "image_generation", "image_edit", "video_generation", "gemini_operation_get", ...CACHE_OPERATIONS]),
  keyOptional: false,
  buildCall(operation, target, body, stream) {
    if (operation === "live") return liveHandshake(target, body);
    const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
    if (CACHE_OPERATIONS.has(operation)) return cacheCall(operation as ProviderObjectOperation, target, body as ProviderObjectBody, headers);
    if (isAnthropicModel(target.model)) {
      const beta = target.clientHeaders.get("anthropic-beta");
      if (beta) headers["anthropic-beta"] = beta;
      const call = anthropicCall(operation, target, body, stream);
      return { url: call.url, headers, body: JSON.stringify(call.body) };
    }
    const call = geminiCall(operation, target, body, stream);
    return { url: call.url, headers, body: JSON.stringify(call.body) };
  },
  /** A key's non-empty value is a bearer token as is; otherwise its service account mints one. */
  async authorizeCall(call, target): Promise<UpstreamCall | GatewayError> {
    const bearer = await bearerFor(target);
    if (bearer instanceof GatewayError) return bearer;
    return { ...call, headers: { ...call.headers, authorization: `Bearer ${bearer}` } };
  },
  prepareBody: prepareImages,
  fanOut: imageFanOut,
  async readReply(operation, reply, target) {
    if (IMAGE_OPERATIONS.has(operation)) return imagesReply(reply, target.model);
    if (operation === "video_generation" || operation === "gemini_operation_get") return jsonReply(reply, geminiOperationOf(await replyJson(reply)));
    if (CACHE_OPERATIONS.has(operation)) return jsonReply(reply, cachedContentsNamed(await replyJson(reply), GEMINI_NAMING));
    if (operation !== "embedding") return reply;
    const embeddings = batchEmbedReply(await replyJson(reply));
    return embeddings instanceof GatewayError ? embeddings : jsonReply(reply, embeddings);
  },
};
