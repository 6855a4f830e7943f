/** What Cohere's v2 API sends back: chat responses, stream events, embed responses. */

export type CohereFinishReason = "COMPLETE" | "STOP_SEQUENCE" | "MAX_TOKENS" | "TOOL_CALL" | "ERROR" | "TIMEOUT";

export interface CohereToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type CohereResponseContent = { type: "text"; text: string } | { type: "thinking"; thinking: string };

/** A span of the reply and the documents or tool results that support it. */
export interface CohereCitation {
  start: number;
  end: number;
  text: string;
  sources: unknown[];
  type?: string;
  content_index?: number;
}

export interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number; search_units?: number; classifications?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  cached_tokens?: number;
}

export interface CohereChatResponse {
  id: string;
  finish_reason: CohereFinishReason;
  message: {
    role: "assistant";
    content?: CohereResponseContent[];
    tool_plan?: string;
    tool_calls?: CohereToolCall[];
    citations?: CohereCitation[];
  };
  usage?: CohereUsage;
}

type Delta<M> = { delta: { message: M } };

export type CohereStreamEvent =
  | { type: "message-start"; id?: string; delta?: { message?: { role?: "assistant" } } }
  | ({ type: "content-start"; index: number } & Delta<{ content: { type: "text"; text?: string } | { type: "thinking"; thinking?: string } }>)
  | ({ type: "content-delta"; index: number } & Delta<{ content: { text?: string; thinking?: string } }>)
  | { type: "content-end"; index: number }
  | ({ type: "tool-plan-delta" } & Delta<{ tool_plan: string }>)
  | ({ type: "tool-call-start"; index: number } & Delta<{ tool_calls: CohereToolCall }>)
  | ({ type: "tool-call-delta"; index: number } & Delta<{ tool_calls: { function: { arguments: string } } }>)
  | { type: "tool-call-end"; index: number }
  | ({ type: "citation-start"; index: number } & Delta<{ citations: CohereCitation }>)
  | { type: "citation-end"; index: number }
  | { type: "message-end"; id?: string; delta: { finish_reason?: CohereFinishReason; error?: string; usage?: CohereUsage } };

export type CohereStreamEventType = CohereStreamEvent["type"];

export interface CohereEmbedResponse {
  id: string;
  embeddings: { float?: number[][] } & Record<string, unknown>;
  texts?: string[];
  meta?: { api_version?: { version: string }; billed_units?: { input_tokens?: number }; tokens?: { input_tokens?: number } };
  response_type?: "embeddings_by_type";
}
