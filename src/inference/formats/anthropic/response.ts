import type { ChatMessage, ChatResponse, ThinkingBlock, ToolCall } from "../../canonical";
import { thinkingBlocksOf, toolUseBlocksOf } from "./assistant-blocks";
import { type Annotation, joinTextBlocks, splitIntoTextBlocks } from "./citations";
import { partToBlock } from "./content";
import { finishReasonOf, stopReasonOf } from "./stop-reason";
import { usageFromCanonical, usageToCanonical } from "./usage";
import type { ContentBlock, MessagesResponse, TextBlock } from "./wire";

/** Anthropic message ids start with `msg_`; ids from other formats get the prefix. */
export const messageIdOf = (id: string) => (id.startsWith("msg_") ? id : `msg_${id.replace(/^chatcmpl-/, "")}`);

export const thinkingToCanonical = (block: Extract<ContentBlock, { type: "thinking" | "redacted_thinking" }>): ThinkingBlock =>
  block.type === "thinking" ? { type: "thinking", thinking: block.thinking, signature: block.signature } : { type: "redacted_thinking", data: block.data };

function assistantFromBlocks(blocks: ContentBlock[]): ChatResponse["choices"][number]["message"] {
  const texts = blocks.filter((block): block is TextBlock => block.type === "text");
  const { text, annotations } = joinTextBlocks(texts);
  const thinking = blocks.flatMap((block) => (block.type === "thinking" || block.type === "redacted_thinking" ? [thinkingToCanonical(block)] : []));
  const toolCalls: ToolCall[] = blocks.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, type: "function" as const, function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }] : [],
  );
  const reasoning = thinking.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("");
  return {
    role: "assistant",
    content: texts.length === 0 && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(thinking.length > 0 ? { reasoning_content: reasoning, thinking_blocks: thinking } : {}),
    ...(annotations.length > 0 ? { annotations } : {}),
  };
}

/** An Anthropic Messages response as the canonical chat response. */
export function messagesResponseToCanonical(body: MessagesResponse): ChatResponse {
  return {
    id: body.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: assistantFromBlocks(body.content ?? []), finish_reason: finishReasonOf(body.stop_reason), stop_sequence: body.stop_sequence ?? null }],
    usage: usageToCanonical(body.usage ?? {}),
  };
}

function textBlocksOf(message: ChatMessage & { annotations?: unknown[] }): ContentBlock[] {
  if (typeof message.content === "string") return splitIntoTextBlocks(message.content, (message.annotations ?? []) as Annotation[]);
  return (message.content ?? []).map(partToBlock).filter((block) => block.type === "text");
}

/** The canonical chat response as an Anthropic Messages response. */
export function canonicalToMessagesResponse(response: ChatResponse): MessagesResponse {
  const choice = response.choices[0];
  const message = choice?.message ?? { role: "assistant" as const, content: null };
  return {
    id: messageIdOf(response.id),
    type: "message",
    role: "assistant",
    model: response.model,
    content: [...thinkingBlocksOf(message, true), ...textBlocksOf(message), ...toolUseBlocksOf(message)],
    stop_reason: stopReasonOf(choice?.finish_reason ?? null, choice?.stop_sequence),
    stop_sequence: choice?.stop_sequence ?? null,
    usage: usageFromCanonical(response.usage),
  };
}
