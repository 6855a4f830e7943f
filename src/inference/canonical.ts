/**
 * The canonical request and response every format translates through: OpenAI's chat
 * completions shape, with the extras Anthropic and Gemini need (thinking blocks with
 * signatures, cache control, citations, cache read/write usage).
 */

export interface CacheControl {
  type: "ephemeral";
  ttl?: string;
}

export type ContentPart =
  | { type: "text"; text: string; cache_control?: CacheControl; citations?: unknown[] }
  /** `url` may be an http(s) URL or a `data:<media type>;base64,...` URL. */
  | { type: "image_url"; image_url: { url: string; detail?: string }; cache_control?: CacheControl }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string; media_type?: string }; cache_control?: CacheControl };

export type ThinkingBlock = { type: "thinking"; thinking: string; signature?: string } | { type: "redacted_thinking"; data: string };

/** Gemini's thought signature on a function call, where Gemini's own OpenAI-compatible API puts it: it must go back with the call. */
export type ToolCallExtra = { google?: { thought_signature?: string } };

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  extra_content?: ToolCallExtra;
}

export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Plain text of the model's reasoning, as OpenAI-compatible reasoning models return it. */
  reasoning_content?: string;
  /** Anthropic thinking blocks, kept whole so signatures survive a round trip. */
  thinking_blocks?: ThinkingBlock[];
  /** OpenAI's: why the model declined, in place of content. */
  refusal?: string | null;
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
  cache_control?: CacheControl;
}

/**
 * A tool the provider runs itself, asked for by a client of another format (a Responses API
 * `web_search`): each format writes its own (Anthropic's server-side web search, Gemini's Google
 * Search grounding), and translate.ts drops it, saying so, towards a format without one.
 */
export type HostedTool = { type: "web_search"; allowed_domains?: string[] };

export type ToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  /** The target model's known output limit: the cap a format that requires one (Anthropic's) takes when the client set none. */
  output_limit?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop?: string | string[];
  tools?: ToolDefinition[];
  hosted_tools?: HostedTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: { type: "text" } | { type: "json_object" } | { type: "json_schema"; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  reasoning_effort?: "minimal" | "low" | "medium" | "high";
  /** Anthropic-style extended thinking budget. */
  thinking?: { type: "enabled"; budget_tokens: number } | { type: "disabled" };
  user?: string;
  metadata?: Record<string, unknown>;
  seed?: number;
  n?: number;
}

/** OpenAI's finish reasons plus the gateway's own for stop reasons that have no OpenAI twin. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "pause_turn" | "refusal" | "model_context_window_exceeded" | null;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cached_audio_tokens`: the cached tokens that are audio (the Realtime API's), counted in both `cached_tokens` and `audio_tokens`. */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; cache_write_1h_tokens?: number; audio_tokens?: number; cached_audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number };
}

export interface ChatResponse {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: ChatMessage & { role: "assistant"; annotations?: unknown[] };
    finish_reason: FinishReason;
    /** The stop sequence that ended the turn, when one did. */
    stop_sequence?: string | null;
    /** OpenAI's token log probabilities; null from every other provider. */
    logprobs?: { content: unknown[] | null; refusal?: unknown[] | null } | null;
  }>;
  usage?: Usage;
}

export interface ChatChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: "assistant";
      content?: string | null;
      reasoning_content?: string;
      /** A thinking block's signature (or a redacted block) arrives whole in one delta. */
      thinking_blocks?: ThinkingBlock[];
      refusal?: string | null;
      tool_calls?: Array<{ index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string }; extra_content?: ToolCallExtra }>;
    };
    finish_reason: FinishReason;
    stop_sequence?: string | null;
  }>;
  usage?: Usage | null;
}

export interface EmbeddingRequest {
  model: string;
  input: string | string[];
  dimensions?: number;
  encoding_format?: "float" | "base64";
  user?: string;
}

export interface EmbeddingResponse {
  object: "list";
  model: string;
  data: Array<{ object: "embedding"; index: number; embedding: number[] }>;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** What each operation's canonical request and response are. Operations without one pass through only. */
export interface CanonicalShapes {
  chat: { request: ChatRequest; response: ChatResponse; chunk: ChatChunk };
  embedding: { request: EmbeddingRequest; response: EmbeddingResponse; chunk: never };
}

export type TranslatableOperation = keyof CanonicalShapes;
