import { GatewayError } from "../../../http/errors";
import type { Operation } from "../../../upstream/operations";
import { binaryReply, imagesResponse, jsonReply, replyBytes, replyJson } from "../media-replies";
import { bearerHeaders, OPENAI_PATHS, openAIModelListing, openAIPayload } from "../openai-compatible";
import type { ProviderAdapter, UpstreamCall, UpstreamTarget } from "../../../upstream/adapter";

/** Workers AI answers `{result, success, errors}`; text-to-image models may answer the image bytes instead. */
interface RunResult {
  result?: { image?: string; text?: string; audio?: string };
  success?: boolean;
  errors?: Array<{ message?: string }>;
}

/** `{base}/accounts/{account_id}/ai`: the key's account names where every call goes. */
function accountRoot(target: UpstreamTarget): string {
  const account = target.key?.config.cloudflare_key_config?.account_id;
  if (!account) throw new Error("cloudflare key needs cloudflare_key_config.account_id");
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return `${target.baseUrl.replace(/\/+$/, "")}/accounts/${encodeURIComponent(account)}/ai`;
}

/** Workers AI's own `/run/{model}` call, for what its OpenAI-compatible endpoints do not cover. */
function runCall(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>): UpstreamCall {
  const url = `${accountRoot(target)}/run/${target.model}`;
  const headers = bearerHeaders(target);
  switch (operation) {
    case "image_generation":
      return { url, headers, body: JSON.stringify({ prompt: body.prompt, ...(typeof body.seed === "number" ? { seed: body.seed } : {}) }) };
    case "speech":
      return { url, headers, body: JSON.stringify({ prompt: body.input, lang: typeof body.language === "string" ? body.language : "en" }) };
    default: {
      // Whisper takes the audio itself as the body.
      const file = body.file as File;
      return { url, headers: { ...headers, "content-type": file.type || "application/octet-stream" }, body: file };
    }
  }
}

const RUN_OPERATIONS: ReadonlySet<Operation> = new Set(["image_generation", "speech", "transcription"]);

/**
 * Cloudflare Workers AI under the key's account: chat and embeddings at its OpenAI-compatible
 * `/ai/v1` endpoints; images, speech and transcriptions at `/ai/run/{model}`, read back into
 * OpenAI's shapes. The key's value is the API token.
 */
export const cloudflare: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["chat", "embedding", ...RUN_OPERATIONS]),
  keyOptional: false,
  buildCall(operation, target, body) {
    if (RUN_OPERATIONS.has(operation)) return runCall(operation, target, body);
    return { url: `${accountRoot(target)}/v1${OPENAI_PATHS[operation]!}`, ...openAIPayload(operation, body, target.model, bearerHeaders(target)) };
  },
  async readReply(operation, reply) {
    if (!RUN_OPERATIONS.has(operation)) return reply;
    if (operation === "image_generation" && !/json/.test(reply.headers.get("content-type") ?? "")) {
      return jsonReply(reply, imagesResponse([{ b64_json: Buffer.from(await replyBytes(reply)).toString("base64") }]));
    }
    const run = await replyJson<RunResult>(reply);
    if (!run.success || !run.result) return new GatewayError({ status: 502, errorType: "provider_bad_response", isGatewayError: false, message: run.errors?.[0]?.message ?? "Workers AI answered no result" });
    if (operation === "speech") return binaryReply(reply, Buffer.from(run.result.audio ?? "", "base64"), "audio/mpeg");
    if (operation === "transcription") return jsonReply(reply, { text: run.result.text ?? "" });
    return jsonReply(reply, imagesResponse([{ b64_json: run.result.image ?? "" }]));
  },
  listModels: {
    call: openAIModelListing((target) => `${accountRoot(target)}/models/search?per_page=1000`).call,
    ids: (body) => ((body as { result?: Array<{ name?: unknown }> }).result ?? []).map((model) => model.name).filter((name): name is string => typeof name === "string"),
  },
};
