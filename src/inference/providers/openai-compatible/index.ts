import type { Operation } from "../../operations";
import type { ProviderAdapter, UpstreamTarget } from "../types";

export const OPENAI_PATHS: Partial<Record<Operation, string>> = {
  chat: "/chat/completions",
  text_completion: "/completions",
  embedding: "/embeddings",
  responses: "/responses",
};

const operations = new Set(Object.keys(OPENAI_PATHS) as Operation[]);

function requireBaseUrl(target: UpstreamTarget): string {
  if (!target.baseUrl) throw new Error("provider has no base_url");
  return target.baseUrl.replace(/\/+$/, "");
}

function bearerHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...target.network.extra_headers };
  if (target.key?.secret) headers.authorization = `Bearer ${target.key.secret}`;
  return headers;
}

/** Serializes the client's body with the upstream model id in place of `provider/model`. */
export const withModel = (body: Record<string, unknown>, model: string) => JSON.stringify({ ...body, model });

/** OpenAI and every provider that speaks its wire format at `{base_url}/chat/completions` etc. */
export function openAICompatible(options: { keyOptional?: boolean; baseUrlFromKey?: (target: UpstreamTarget) => string | undefined } = {}): ProviderAdapter {
  return {
    format: "openai",
    operations,
    keyOptional: options.keyOptional ?? false,
    buildCall(operation, target, body) {
      const root = options.baseUrlFromKey?.(target) ?? requireBaseUrl(target);
      return { url: `${root.replace(/\/+$/, "")}${OPENAI_PATHS[operation]!}`, headers: bearerHeaders(target), body: withModel(body, target.model) };
    },
  };
}

/** Self-hosted servers (Ollama, vLLM, SGLang) take their address from the key's `url`, which names the server root. */
export const serverUrlFromKey = (url: string | undefined) => (url ? `${url.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1` : undefined);
