import type { ChatChunk, FinishReason, Usage } from "../../canonical";
import type { SseChunkDecoder } from "../sse-chunks";
import { canonicalUsage } from "./usage";

/**
 * The Responses API, read for what logs and budgets need: its final response object (usage, how
 * it ended, the functions it called) and, while it streams, its text.
 */
interface OutputItem {
  type: string;
  name?: string;
  content?: Array<{ type: string; text?: string }>;
}

export interface ResponseObject {
  status?: string;
  incomplete_details?: { reason?: string } | null;
  output?: OutputItem[];
  usage?: Record<string, unknown> | null;
}

const CALLS = new Set(["function_call", "custom_tool_call"]);

function finishOf(response: ResponseObject): FinishReason {
  if (response.status === "incomplete") return response.incomplete_details?.reason === "content_filter" ? "content_filter" : "length";
  if (response.output?.some((item) => CALLS.has(item.type))) return "tool_calls";
  return response.status === "completed" ? "stop" : null;
}

/** What a summary of a reply holds, read from a final response object. */
export function responseOutcome(response: ResponseObject): { usage?: Usage; finishReason: FinishReason; toolCallNames: string[]; content: string } {
  const output = response.output ?? [];
  return {
    usage: response.usage ? canonicalUsage(response.usage) : undefined,
    finishReason: finishOf(response),
    toolCallNames: output.flatMap((item) => (CALLS.has(item.type) && typeof item.name === "string" ? [item.name] : [])),
    content: output.flatMap((item) => (item.type === "message" ? (item.content ?? []).flatMap((part) => (part.type === "output_text" && part.text ? [part.text] : [])) : [])).join(""),
  };
}

const chunkOf = (choice: ChatChunk["choices"][number], usage?: Usage): ChatChunk => ({ id: "", object: "chat.completion.chunk", created: 0, model: "", choices: [choice], ...(usage ? { usage } : {}) });

const ENDS = new Set(["response.completed", "response.incomplete", "response.failed"]);

interface StreamEvent {
  type?: string;
  delta?: unknown;
  item?: OutputItem;
  output_index?: number;
  response?: ResponseObject;
}

/** A Responses stream as canonical chunks: text deltas, each function call as it opens, then how it ended and its usage. */
export const responsesSseDecoder = (): SseChunkDecoder => ({
  event(message) {
    const event = JSON.parse(message.data) as StreamEvent;
    if (event.type === "response.output_text.delta" && typeof event.delta === "string") return [chunkOf({ index: 0, delta: { content: event.delta }, finish_reason: null })];
    if (event.type === "response.output_item.added" && event.item && CALLS.has(event.item.type)) {
      return [chunkOf({ index: 0, delta: { tool_calls: [{ index: event.output_index ?? 0, function: { name: event.item.name } }] }, finish_reason: null })];
    }
    if (event.type && ENDS.has(event.type) && event.response) {
      const { finishReason, usage } = responseOutcome(event.response);
      return [chunkOf({ index: 0, delta: {}, finish_reason: finishReason }, usage)];
    }
    return [];
  },
  end: () => [],
});
