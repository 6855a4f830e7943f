import { badRequest, GatewayError } from "../../../http/errors";
import type { ChatMessage } from "../../canonical";
import type { Operation } from "../../../upstream/operations";
import { imagesResponse, jsonReply, replyJson } from "../media-replies";
import { bearerHeaders, requireBaseUrl } from "../openai-compatible";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

interface Prediction {
  id: string;
  status: "starting" | "processing" | "succeeded" | "failed" | "canceled";
  output?: string | string[] | null;
  error?: string | null;
  metrics?: { input_token_count?: number; output_token_count?: number };
}

/**
 * Where a prediction is created: `owner/name:version` pins a version (`/predictions`); otherwise
 * the model's own endpoint, or its deployment's when the key says `use_deployments_endpoint`.
 */
function predictionUrl(target: UpstreamTarget): { url: string; version?: string } {
  const [name, version] = target.model.split(":");
  if (version) return { url: `${requireBaseUrl(target)}/predictions`, version };
  const collection = target.key?.config.replicate_key_config?.use_deployments_endpoint ? "deployments" : "models";
  return { url: `${requireBaseUrl(target)}/${collection}/${name}/predictions` };
}

const textOf = (message: ChatMessage) => (typeof message.content === "string" ? message.content : (message.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join(""));

/** A chat as a language model's input: the system prompt apart, the turns as one prompt. */
function chatInput(body: Record<string, unknown>): Record<string, unknown> {
  const messages = (body.messages ?? []) as ChatMessage[];
  const system = messages.filter((message) => message.role === "system" || message.role === "developer").map(textOf).join("\n");
  const turns = messages.filter((message) => message.role !== "system" && message.role !== "developer");
  const prompt = turns.length === 1 ? textOf(turns[0]!) : turns.map((message) => `${message.role}: ${textOf(message)}`).join("\n");
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return { prompt, ...(system ? { system_prompt: system } : {}), ...(maxTokens ? { max_tokens: maxTokens } : {}), ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}), ...(typeof body.top_p === "number" ? { top_p: body.top_p } : {}) };
}

const imageInput = (body: Record<string, unknown>) => ({ prompt: body.prompt, ...(typeof body.n === "number" && body.n > 1 ? { num_outputs: body.n } : {}) });

function finished(prediction: Prediction): GatewayError | undefined {
  if (prediction.status === "succeeded") return undefined;
  if (prediction.status === "failed" || prediction.status === "canceled") return new GatewayError({ status: 502, errorType: "provider_prediction_failed", isGatewayError: false, message: `prediction ${prediction.id} ${prediction.status}: ${prediction.error ?? "no reason given"}` });
  return new GatewayError({ status: 504, errorType: "provider_timeout", message: `prediction ${prediction.id} was still ${prediction.status} when Replicate stopped waiting` });
}

function chatCompletion(prediction: Prediction, model: string) {
  const content = Array.isArray(prediction.output) ? prediction.output.join("") : (prediction.output ?? "");
  const prompt = prediction.metrics?.input_token_count ?? 0;
  const completion = prediction.metrics?.output_token_count ?? 0;
  return {
    id: prediction.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/**
 * Replicate: chats and images run as predictions, created with `Prefer: wait` so the answer comes
 * in the same call, and read back into OpenAI's shapes. Streaming is not offered.
 */
export const replicate: ProviderAdapter = {
  format: "openai",
  operations: new Set<Operation>(["chat", "image_generation"]),
  keyOptional: false,
  buildCall(operation, target, body, stream) {
    if (stream) throw badRequest("replicate predictions are not streamed through the gateway; drop `stream`", "stream", "caller_streaming_unsupported");
    const { url, version } = predictionUrl(target);
    const input = operation === "chat" ? chatInput(body) : imageInput(body);
    return { url, headers: { ...bearerHeaders(target), prefer: "wait" }, body: JSON.stringify({ ...(version ? { version } : {}), input }) };
  },
  async readReply(operation, reply, target) {
    const prediction = await replyJson<Prediction>(reply);
    const failure = finished(prediction);
    if (failure) return failure;
    if (operation === "chat") return jsonReply(reply, chatCompletion(prediction, target.model));
    const urls = Array.isArray(prediction.output) ? prediction.output : prediction.output ? [prediction.output] : [];
    return jsonReply(reply, imagesResponse(urls.map((url) => ({ url }))));
  },
  listModels: {
    // Deployment keys reach their account's deployments; other keys are checked against the account itself.
    call: (target) => ({ url: `${requireBaseUrl(target)}/${target.key?.config.replicate_key_config?.use_deployments_endpoint ? "deployments" : "account"}`, method: "GET", headers: { authorization: bearerHeaders(target).authorization ?? "" } }),
    ids: (body) => ((body as { results?: Array<{ owner?: string; name?: string }> }).results ?? []).map((deployment) => `${deployment.owner}/${deployment.name}`),
  },
};
