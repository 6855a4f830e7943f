import { anthropic } from "./anthropic";
import { azure } from "./azure";
import { bedrock } from "./bedrock";
import { cohere } from "./cohere";
import { gemini } from "./gemini";
import { openAICompatible, serverUrlFromKey } from "./openai-compatible";
import type { ProviderAdapter } from "./types";
import { vertex } from "./vertex";

export interface BuiltInProvider {
  adapter: ProviderAdapter;
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  defaultBaseUrl?: string;
}

const hosted = (defaultBaseUrl: string): BuiltInProvider => ({ adapter: openAICompatible(), defaultBaseUrl });

const selfHosted = (defaultServer: string, urlOf: (config: import("../../provider-registry/schemas").ProviderKeyInput) => string | undefined): BuiltInProvider => ({
  adapter: openAICompatible({ keyOptional: true, baseUrlFromKey: (target) => (target.key ? serverUrlFromKey(urlOf(target.key.config)) : undefined) }),
  defaultBaseUrl: `${defaultServer}/v1`,
});

/** Every provider the gateway knows by name. Custom providers reuse one of these as their base type. */
export const BUILT_IN_PROVIDERS: Record<string, BuiltInProvider> = {
  openai: hosted("https://api.openai.com/v1"),
  azure: { adapter: azure },
  anthropic: { adapter: anthropic, defaultBaseUrl: "https://api.anthropic.com/v1" },
  // No default base URL: the regional host comes from each key's bedrock_key_config.region.
  bedrock: { adapter: bedrock },
  cohere: { adapter: cohere, defaultBaseUrl: "https://api.cohere.com/v2" },
  gemini: { adapter: gemini, defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta" },
  // No default base URL: the host follows each key's vertex_key_config.region.
  vertex: { adapter: vertex },
  groq: hosted("https://api.groq.com/openai/v1"),
  mistral: hosted("https://api.mistral.ai/v1"),
  openrouter: hosted("https://openrouter.ai/api/v1"),
  xai: hosted("https://api.x.ai/v1"),
  cerebras: hosted("https://api.cerebras.ai/v1"),
  perplexity: hosted("https://api.perplexity.ai"),
  ollama: selfHosted("http://localhost:11434", (config) => config.ollama_key_config?.url),
  vllm: selfHosted("http://localhost:8000", (config) => config.vllm_key_config?.url),
  sgl: selfHosted("http://localhost:30000", (config) => config.sgl_key_config?.url),
};

export const isBuiltInProvider = (name: string) => Object.hasOwn(BUILT_IN_PROVIDERS, name);
