import type { Operation } from "../../../upstream/operations";
import { imagesResponse, jsonReply, replyBytes, replyJson } from "../media-replies";
import { bearerHeaders, OPENAI_PATHS, openAIModelListing, openAIPayload } from "../openai-compatible";
import { withMintedBearer } from "../oauth";
import type { ProviderAdapter, UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";

function routerOf(target: UpstreamTarget): string {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** HF Inference's task pipelines: `{router}/hf-inference/models/{model}[/pipeline/{task}]`. */
function pipelineCall(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>): UpstreamCall {
  const model = `${routerOf(target)}/hf-inference/models/${target.model}`;
  const headers = bearerHeaders(target);
  switch (operation) {
    case "embedding":
      return { url: `${model}/pipeline/feature-extraction`, headers, body: JSON.stringify({ inputs: Array.isArray(body.input) ? body.input : [body.input] }) };
    case "image_generation":
      return { url: model, headers: { ...headers, accept: "image/png" }, body: JSON.stringify({ inputs: body.prompt }) };
    default: {
      const file = body.file as File;
      return { url: model, headers: { ...headers, "content-type": file.type || "application/octet-stream" }, body: file };
    }
  }
}

const PIPELINE_OPERATIONS: ReadonlySet<Operation> = new Set(["embedding", "image_generation", "transcription"]);

/** Feature extraction answers one vector per input (or, for a single input, sometimes the vector alone). */
function embeddingsResponse(vectors: number[][] | number[], model: string) {
  const rows = Array.isArray(vectors[0]) ? (vectors as number[][]) : [vectors as number[]];
  return { object: "list", model, data: rows.map((embedding, index) => ({ object: "embedding", index, embedding })), usage: { prompt_tokens: 0, total_tokens: 0 } };
}

/**
 * Hugging Face Inference Providers: chats through the router's OpenAI-compatible
 * `/v1/chat/completions`; embeddings, images and transcriptions through HF Inference's task
 * pipelines, read back into OpenAI's shapes. The token is a bearer (minted when the key has an
 * oauth_key_config and no value).
 */
export const huggingface: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["chat", ...PIPELINE_OPERATIONS]),
  keyOptional: false,
  buildCall(operation, target, body) {
    if (PIPELINE_OPERATIONS.has(operation)) return pipelineCall(operation, target, body);
    return { url: `${routerOf(target)}/v1${OPENAI_PATHS[operation]!}`, ...openAIPayload(operation, body, target.model, bearerHeaders(target)) };
  },
  authorizeCall: (call, target) => withMintedBearer(call, target),
  async readReply(operation, reply, target) {
    switch (operation) {
      case "embedding":
        return jsonReply(reply, embeddingsResponse(await replyJson(reply), target.model));
      case "image_generation":
        return jsonReply(reply, imagesResponse([{ b64_json: Buffer.from(await replyBytes(reply)).toString("base64") }]));
      case "transcription":
        return jsonReply(reply, { text: (await replyJson<{ text?: string }>(reply)).text ?? "" });
      default:
        return reply;
    }
  },
  listModels: openAIModelListing((target) => `${routerOf(target)}/v1/models`),
};
