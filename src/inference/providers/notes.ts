/** What a reader of the provider reference needs beyond what the registry says: the service's name, its key, its quirks. */
export interface ProviderNote {
  /** The service as its vendor names it. */
  title: string;
  /** What goes in a key: the credential and any key config. */
  key: string;
  /** Regions, model naming and what the gateway changes on the way. */
  notes?: string;
}

const apiKey = "API key";

/** One entry per built-in provider; test/inference/provider-reference.test.ts fails on a provider without one. */
export const PROVIDER_NOTES: Readonly<Record<string, ProviderNote>> = {
  openai: { title: "OpenAI", key: apiKey, notes: "Every operation OpenAI's API has, and the objects it keeps (files, vector stores, containers, conversations)." },
  azure: { title: "Azure OpenAI", key: "API key, or Entra ID client credentials; `azure_key_config` names the endpoint, API version and deployments", notes: "A model name maps to its deployment." },
  anthropic: { title: "Anthropic", key: apiKey, notes: "Clients of any format reach it translated; the Messages API is relayed untouched." },
  bedrock: { title: "Amazon Bedrock", key: "Access keys, or a role; `bedrock_key_config.region` names the region", notes: "Converse and InvokeModel, signed with SigV4." },
  cohere: { title: "Cohere", key: apiKey, notes: "The v2 API: chat, embed, rerank." },
  gemini: { title: "Google AI (Gemini API)", key: apiKey, notes: "Gemini, Imagen and Veo models; the Live API." },
  vertex: { title: "Google Vertex AI", key: "A service account or workload identity; `vertex_key_config` names the project and region", notes: "Gemini and Anthropic models in your project." },
  groq: { title: "Groq", key: apiKey },
  mistral: { title: "Mistral AI", key: apiKey, notes: "Fields Mistral refuses are dropped from translated bodies." },
  openrouter: { title: "OpenRouter", key: apiKey, notes: "Models are named by their vendor: `openrouter/anthropic/claude-sonnet-4.5`." },
  xai: { title: "xAI (Grok)", key: apiKey, notes: "Live search options (`search_parameters`) pass through." },
  cerebras: { title: "Cerebras", key: apiKey },
  perplexity: { title: "Perplexity", key: apiKey, notes: "Citations and search results stay in the reply." },
  fireworks: { title: "Fireworks AI", key: apiKey, notes: "Models by path: `fireworks/accounts/fireworks/models/llama-v3p1-8b-instruct`." },
  deepseek: { title: "DeepSeek", key: apiKey, notes: "`reasoning_content` is kept, and sent back with earlier tool-calling turns as DeepSeek requires." },
  moonshot: { title: "Moonshot AI (Kimi)", key: apiKey, notes: "Earlier turns' reasoning is sent back, as its thinking models require." },
  zai: { title: "Z.ai (GLM)", key: apiKey, notes: "Earlier turns' reasoning is sent back, as its thinking models require." },
  nebius: { title: "Nebius AI Studio", key: apiKey },
  parasail: { title: "Parasail", key: apiKey },
  together: { title: "Together AI", key: apiKey },
  sambanova: { title: "SambaNova Cloud", key: apiKey },
  deepinfra: { title: "DeepInfra", key: apiKey, notes: "Models by vendor: `deepinfra/meta-llama/Meta-Llama-3.1-8B-Instruct`." },
  novita: { title: "Novita AI", key: apiKey },
  nvidia: { title: "NVIDIA NIM (API catalog)", key: "API key (`nvapi-…`)", notes: "For a NIM you run yourself, a custom provider of base type `openai` at its address." },
  dashscope: { title: "Alibaba Cloud Model Studio (Qwen), international", key: "DashScope API key of the Singapore region", notes: "The OpenAI-compatible mode." },
  "dashscope-cn": { title: "Alibaba Cloud Model Studio (Qwen), mainland China", key: "DashScope API key of the Beijing region", notes: "The OpenAI-compatible mode; keys of one region do not work in the other." },
  github: { title: "GitHub Models", key: "A GitHub token with the `models` scope", notes: "Models by publisher: `github/openai/gpt-4.1`." },
  databricks: { title: "Databricks Model Serving", key: "A personal access token or service principal token", notes: "`network_config.base_url` must name the workspace: `https://<workspace>/serving-endpoints`; the model is the serving endpoint's name." },
  cloudflare: { title: "Cloudflare Workers AI", key: "API token; `cloudflare_key_config.account_id` names the account" },
  replicate: { title: "Replicate", key: "API token; `replicate_key_config.use_deployments_endpoint` for deployments", notes: "Predictions, waited for; a pinned version as `owner/model:version`." },
  huggingface: { title: "Hugging Face Inference Providers", key: "A Hugging Face token", notes: "Chat through the router; embeddings, images and speech through HF Inference pipelines." },
  elevenlabs: { title: "ElevenLabs", key: "API key (sent as `xi-api-key`)", notes: "`voice` names the voice id." },
  jina: { title: "Jina AI", key: apiKey },
  voyage: { title: "Voyage AI", key: apiKey, notes: "`top_n` is sent as `top_k` and `dimensions` as `output_dimension`." },
  stability: { title: "Stability AI", key: apiKey, notes: "`stable-image-ultra`, `stable-image-core` or an SD3 model (`sd3.5-large`); `size` becomes the nearest aspect ratio; one image a call." },
  watsonx: { title: "IBM watsonx.ai", key: "An IBM Cloud API key (exchanged for an IAM token); `watsonx_key_config` names the project or space", notes: "Another region's API root (`https://eu-de.ml.cloud.ibm.com/ml/v1`, ...) as `network_config.base_url`." },
  ollama: { title: "Ollama", key: "None; `ollama_key_config.url` names the server" },
  vllm: { title: "vLLM", key: "Optional; `vllm_key_config.url` names the server, `model_name` the model it serves" },
  sgl: { title: "SGLang", key: "Optional; `sgl_key_config.url` names the server" },
};
