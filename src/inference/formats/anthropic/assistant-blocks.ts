import type { ChatMessage } from "../../canonical";
import type { ContentBlock } from "./wire";

/**
 * Thinking blocks of an assistant turn. Reasoning text from OpenAI-family models has no
 * signature: it may be shown in a response, but Anthropic rejects it in a request.
 */
export function thinkingBlocksOf(message: ChatMessage, includeUnsigned: boolean): ContentBlock[] {
  if (message.thinking_blocks?.length) {
    return message.thinking_blocks.map((block) => (block.type === "thinking" ? { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" } : block));
  }
  return includeUnsigned && message.reasoning_content ? [{ type: "thinking", thinking: message.reasoning_content, signature: "" }] : [];
}

/** Tool arguments a model wrote as invalid JSON cannot become an `input` object; the call keeps an empty one. */
function parseToolArguments(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text || "{}");
    return parsed !== null && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

export const toolUseBlocksOf = (message: ChatMessage): ContentBlock[] =>
  (message.tool_calls ?? []).map((call) => ({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) }));
