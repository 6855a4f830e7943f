import type { Operation } from "../../operations";
import type { ProviderAdapter, UpstreamTarget } from "../types";

const GENAI_OPERATIONS: ReadonlySet<Operation> = new Set(["chat", "embedding", "count_tokens"]);

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

function baseUrlOf(target: UpstreamTarget): string {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "");
}

/** Google AI (generativelanguage): `{base}/models/{model}:method`, the key in `x-goog-api-key`. */
export const gemini: ProviderAdapter = {
  format: "genai",
  operations: GENAI_OPERATIONS,
  keyOptional: false,
  buildCall(operation, target, body, stream) {
    const resource = modelResource(target.model);
    const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
    if (target.key?.secret) headers["x-goog-api-key"] = target.key.secret;
    return { url: `${baseUrlOf(target)}/${resource}:${genaiMethod(operation, body, stream)}`, headers, body: JSON.stringify(withModelInside(body, resource)) };
  },
};
