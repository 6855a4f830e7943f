/**
 * The Anthropic Messages API as it travels on the wire (spec 2.8). Only the fields the
 * translation reads or writes are named; everything else passes through untouched when
 * client and upstream both speak this format.
 */
import type { CacheControl } from "../../canonical";

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" | "model_context_window_exceeded";

export type MediaSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "text"; media_type: "text/plain"; data: string }
  | { type: "file"; file_id: string };

export interface TextBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
  citations?: unknown[] | null;
}

export type ContentBlock =
  | TextBlock
  | { type: "image"; source: MediaSource; cache_control?: CacheControl }
  | { type: "document"; source: MediaSource; title?: string; context?: string; citations?: { enabled: boolean }; cache_control?: CacheControl }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: CacheControl }
  | { type: "tool_result"; tool_use_id: string; content?: string | ContentBlock[]; is_error?: boolean; cache_control?: CacheControl };
// Other block kinds (server tools, MCP tool calls, search results) pass through on same-format
// routes; translation drops them in the `default` branch of its switches.

export interface MessageParam {
  /** `system` carries instructions mid-conversation (Claude Code sends them); other roles pass through on same-format routes only. */
  role: "user" | "assistant" | "system" | (string & {});
  content: string | ContentBlock[];
}

export interface ToolParam {
  name: string;
  description?: string;
  /** Absent on server tools (`web_search_...`, `bash_...`), which have no canonical twin. */
  input_schema?: Record<string, unknown>;
  type?: string;
  cache_control?: CacheControl;
  /** The web search server tool's: the only domains it may search. */
  allowed_domains?: string[];
}

export type ToolChoiceParam = { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean } | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  thinking?: { type: "enabled"; budget_tokens: number } | { type: "disabled" } | { type: "adaptive" };
  metadata?: { user_id?: string };
  output_config?: { effort?: string | null; format?: OutputFormat | null };
  /** The structured-outputs beta's field (`anthropic-beta: structured-outputs-2025-11-13`), before it moved into output_config. */
  output_format?: OutputFormat | null;
}

export type OutputFormat = { type: "json_schema"; schema: Record<string, unknown> };

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
  output_tokens_details?: { thinking_tokens: number } | null;
}

export interface MessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export type BlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "citations_delta"; citation: unknown };

export type StreamEvent =
  | { type: "message_start"; message: MessagesResponse }
  | { type: "content_block_start"; index: number; content_block: ContentBlock }
  | { type: "content_block_delta"; index: number; delta: BlockDelta }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta: { stop_reason: StopReason | null; stop_sequence: string | null }; usage: Partial<MessagesUsage> }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };
