import type { ProviderKeyInput } from "../../config/sections/providers";
import { openAIBatches, underBaseUrl } from "../batches/openai";
import type { Operation } from "../../upstream/operations";
import { anthropic } from "./anthropic";
import { azure } from "./azure";
import { bedrock } from "./bedrock";
import { cloudflare } from "./cloudflare";
import { cohere } from "./cohere";
import { elevenlabs } from "./elevenlabs";
import { gemini } from "./gemini";
import { huggingface } from "./huggingface";
import { mistralBody } from "./mistral/request-body";
import { bearerHeaders, OPENAI_MEDIA_OPERATIONS, type OpenAICompatibleOptions, openAICompatible, serverUrlFromKey } from "./openai-compatible";
import { replicate } from "./replicate";
import { stability } from "./stability";
import { voyage } from "./voyage";
import { watsonx } from "./watsonx";
import type { ProviderFamily } from "../../upstream/adapter";
import { vertex } from "./vertex";

/** A hosted OpenAI-format API: it refuses fields OpenAI's API does not define, unless `lenient`. */
const hosted = (defaultBaseUrl: string, options: OpenAICompatibleOptions = {}, lenient = false): ProviderFamily => ({
  adapter: openAICompatible({ definedFieldsOnly: !lenient, ...options }),
  defaultBaseUrl,
});

/** Ollama, vLLM and SGLang: reachable without a key, at the server a key's `url` names. */
const selfHosted = (defaultServer: string, urlOf: (config: ProviderKeyInput) => string | undefined, extraOperations: readonly Operation[] = []): ProviderFamily => ({
  adapter: openAICompatible({ keyOptional: true, baseUrlFromKey: (target) => (target.key ? serverUrlFromKey(urlOf(target.key.config)) : undefined), extraOperations }),
  defaultBaseUrl: `${defaultServer}/v1`,
});

/** A hosted API that speaks OpenAI's chat, completions and embeddings but not its Responses API. */
const chatOnly = (defaultBaseUrl: string, extraOperations: readonly Operation[] = []) => hosted(defaultBaseUrl, { responsesApi: false, extraOperations });

/** Jina AI: embeddings and rerank, both in OpenAI's and Cohere's shapes. */
const jina: ProviderFamily = {
  adapter: { ...openAICompatible({ extraOperations: ["rerank"] }), operations: new Set<Operation>(["embedding", "rerank"]), listModels: undefined },
  defaultBaseUrl: "https://api.jina.ai/v1",
};

const openAIApi = openAICompatible({
  definedFieldsOnly: true,
  keepsOpenAIObjects: true,
  extraOperations: OPENAI_MEDIA_OPERATIONS,
  batches: openAIBatches(underBaseUrl, bearerHeaders),
});

/** Every provider the gateway knows by name. Custom providers reuse one of these as their base type. */
export const BUILT_IN_PROVIDERS: Record<string, ProviderFamily> = {
  openai: { adapter: openAIApi, defaultBaseUrl: "https://api.openai.com/v1" },
  azure: { adapter: azure },
  anthropic: { adapter: anthropic, defaultBaseUrl: "https://api.anthropic.com/v1" },
  // No default base URL: the regional host comes from each key's bedrock_key_config.region.
  bedrock: { adapter: bedrock },
  cohere: { adapter: cohere, defaultBaseUrl: "https://api.cohere.com/v2" },
  gemini: { adapter: gemini, defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta" },
  // No default base URL: the host follows each key's vertex_key_config.region.
  vertex: { adapter: vertex },
  groq: hosted("https://api.groq.com/openai/v1", { extraOperations: ["transcription", "translation", "speech"] }),
  mistral: hosted("https://api.mistral.ai/v1", { extraOperations: ["transcription"], adjustBody: mistralBody, responsesApi: false }),
  // OpenRouter takes top_k and passes other fields on to the model's own provider.
  openrouter: hosted("https://openrouter.ai/api/v1", {}, true),
  xai: hosted("https://api.x.ai/v1", { extraOperations: ["image_generation"] }),
  cerebras: hosted("https://api.cerebras.ai/v1"),
  perplexity: hosted("https://api.perplexity.ai"),
  fireworks: hosted("https://api.fireworks.ai/inference/v1"),
  // DeepSeek's thinking mode (on by default) refuses a tool-calling turn sent back without its reasoning.
  deepseek: hosted("https://api.deepseek.com/v1", { echoesReasoning: true }),
  // Kimi's and GLM's thinking models, like DeepSeek's, keep an earlier tool-calling turn's reasoning only when it comes back.
  moonshot: hosted("https://api.moonshot.ai/v1", { echoesReasoning: true, responsesApi: false }),
  zai: hosted("https://api.z.ai/api/paas/v4", { echoesReasoning: true, responsesApi: false }),
  nebius: hosted("https://api.studio.nebius.com/v1", { extraOperations: ["image_generation"] }),
  parasail: hosted("https://api.parasail.io/v1"),
  together: chatOnly("https://api.together.xyz/v1", ["image_generation", "rerank"]),
  sambanova: chatOnly("https://api.sambanova.ai/v1"),
  deepinfra: chatOnly("https://api.deepinfra.com/v1/openai"),
  novita: chatOnly("https://api.novita.ai/v3/openai"),
  nvidia: chatOnly("https://integrate.api.nvidia.com/v1"),
  // Alibaba Cloud Model Studio (Qwen): the international (Singapore) and the mainland China (Beijing) endpoints.
  dashscope: chatOnly("https://dashscope-intl.aliyuncs.com/compatible-mode/v1"),
  "dashscope-cn": chatOnly("https://dashscope.aliyuncs.com/compatible-mode/v1"),
  // GitHub Models names models by publisher (`openai/gpt-4.1`); a GitHub token is the key.
  github: chatOnly("https://models.github.ai/inference"),
  // Model serving endpoints of a Databricks workspace, at `https://<workspace>/serving-endpoints`.
  databricks: { adapter: openAICompatible({ responsesApi: false }), requiresBaseUrl: true },
  jina,
  voyage: { adapter: voyage, defaultBaseUrl: "https://api.voyageai.com/v1" },
  stability: { adapter: stability, defaultBaseUrl: "https://api.stability.ai/v2beta" },
  // Dallas by default; another region's host (eu-de, jp-tok, ...) as network_config.base_url.
  watsonx: { adapter: watsonx, defaultBaseUrl: "https://us-south.ml.cloud.ibm.com/ml/v1" },
  // Each folder below speaks a wire format of its own.
  cloudflare: { adapter: cloudflare, defaultBaseUrl: "https://api.cloudflare.com/client/v4" },
  replicate: { adapter: replicate, defaultBaseUrl: "https://api.replicate.com/v1" },
  huggingface: { adapter: huggingface, defaultBaseUrl: "https://router.huggingface.co" },
  elevenlabs: { adapter: elevenlabs, defaultBaseUrl: "https://api.elevenlabs.io/v1" },
  ollama: selfHosted("http://localhost:11434", (config) => config.ollama_key_config?.url),
  vllm: selfHosted("http://localhost:8000", (config) => config.vllm_key_config?.url, ["rerank", "transcription"]),
  sgl: selfHosted("http://localhost:30000", (config) => config.sgl_key_config?.url, ["rerank"]),
};

export const isBuiltInProvider = (name: string) => Object.hasOwn(BUILT_IN_PROVIDERS, name);
