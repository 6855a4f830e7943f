import type { OAuthKeyConfig } from "../../../config/sections/providers";
import type { Operation } from "../../../upstream/operations";
import { jsonReply, replyJson } from "../media-replies";
import { withMintedBearer } from "../oauth";
import { requireBaseUrl } from "../openai-compatible";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

/** The API version every call names; watsonx.ai answers in the shape of the version asked for. */
export const WATSONX_API_VERSION = "2024-10-08";
const IBM_CLOUD_IAM = "https://iam.cloud.ibm.com/identity/token";
const IAM_API_KEY_GRANT = "urn:ibm:params:oauth:grant-type:apikey";

type Body = Record<string, unknown>;

const urlOf = (target: UpstreamTarget, path: string) => `${requireBaseUrl(target)}${path}?version=${WATSONX_API_VERSION}`;

/** Calls run in a project or a deployment space, named by the key. */
function scopeOf(target: UpstreamTarget): Body {
  const config = target.key?.config.watsonx_key_config;
  if (config?.space_id) return { space_id: config.space_id };
  if (config?.project_id) return { project_id: config.project_id };
  throw new Error("watsonx key needs watsonx_key_config.project_id or space_id");
}

/** The IBM Cloud API key is exchanged for an IAM bearer token, cached until shortly before it expires. */
function iamGrant(target: UpstreamTarget): OAuthKeyConfig | undefined {
  if (!target.key?.secret) return undefined;
  return { grant_type: IAM_API_KEY_GRANT, token_url: target.key.config.watsonx_key_config?.iam_url ?? IBM_CLOUD_IAM, extra_params: { apikey: target.key.secret } };
}

function chatBody(body: Body, model: string, scope: Body): Body {
  const { model: _model, stream: _stream, stream_options: _options, ...rest } = body;
  return { ...rest, model_id: model, ...scope };
}

interface WatsonxEmbeddings {
  model_id?: string;
  results?: Array<{ embedding: number[] }>;
  input_token_count?: number;
}

/** watsonx.ai's chat reply is OpenAI's with `model_id`: named the way OpenAI clients read it. */
const asChatCompletion = (reply: Body) => ({ ...reply, object: "chat.completion", model: reply.model ?? reply.model_id });

const asEmbeddings = (reply: WatsonxEmbeddings) => ({
  object: "list",
  data: (reply.results ?? []).map((result, index) => ({ object: "embedding", embedding: result.embedding, index })),
  model: reply.model_id,
  usage: { prompt_tokens: reply.input_token_count ?? 0, total_tokens: reply.input_token_count ?? 0 },
});

/**
 * IBM watsonx.ai: chat at `{base}/text/chat` (`/text/chat_stream` streamed, OpenAI's chunks with
 * `model_id`), embeddings at `{base}/text/embeddings` (`inputs`, answered as `results`), each in the
 * key's project or space, with an IAM token minted from the key's IBM Cloud API key.
 */
export const watsonx: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["chat", "embedding"]),
  keyOptional: false,
  buildCall(operation, target, body, stream) {
    const headers = { "content-type": "application/json", accept: stream ? "text/event-stream" : "application/json", ...target.network.extra_headers };
    if (operation === "embedding") {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return { url: urlOf(target, "/text/embeddings"), headers, body: JSON.stringify({ inputs, model_id: target.model, ...scopeOf(target) }) };
    }
    return { url: urlOf(target, stream ? "/text/chat_stream" : "/text/chat"), headers, body: JSON.stringify(chatBody(body, target.model, scopeOf(target))) };
  },
  authorizeCall: (call, target) => withMintedBearer(call, target, iamGrant(target)),
  async readReply(operation, reply) {
    if ("stream" in reply) return reply;
    if (operation === "embedding") return jsonReply(reply, asEmbeddings(await replyJson<WatsonxEmbeddings>(reply)));
    return jsonReply(reply, asChatCompletion(await replyJson<Body>(reply)));
  },
  listModels: {
    call: (target) => ({ url: `${urlOf(target, "/foundation_model_specs")}&filters=function_text_chat`, method: "GET", headers: {} }),
    ids: (body) => ((body as { resources?: Array<{ model_id?: unknown }> }).resources ?? []).map((model) => model.model_id).filter((id): id is string => typeof id === "string"),
  },
};
