import { badRequest } from "../../../http/errors";
import type { ChatMessage, ContentPart, ThinkingBlock, ToolCall } from "../../canonical";
import { documentFromFilePart, documentToFilePart, imageFromUrl, imageToDataUrl, reasoningFromThinking, thinkingFromReasoning } from "./content";
import type { ContentBlock, ConverseMessage, ConverseRequest } from "./wire";

type SystemBlock = NonNullable<ConverseRequest["system"]>[number];
type ToolResultItem = NonNullable<ContentBlock["toolResult"]>["content"][number];
export type AssistantMessage = ChatMessage & { role: "assistant" };

const CACHE_POINT = { cachePoint: { type: "default" as const } };

/** One text part without cache control reads best as a plain string, as OpenAI clients send it. */
function collapse(parts: ContentPart[]): string | ContentPart[] {
  const [only] = parts;
  return parts.length === 1 && only?.type === "text" && !only.cache_control ? only.text : parts;
}

/** Text, image and document blocks as canonical parts; a cache point marks the part before it. */
function partsFromBlocks(blocks: ReadonlyArray<ContentBlock | SystemBlock | ToolResultItem>): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    if ("cachePoint" in block && block.cachePoint && parts.length > 0) parts[parts.length - 1]!.cache_control = { type: "ephemeral" };
    else if (block.text !== undefined) parts.push({ type: "text", text: block.text });
    else if ("json" in block && block.json !== undefined) parts.push({ type: "text", text: JSON.stringify(block.json) });
    else if ("image" in block && block.image) parts.push({ type: "image_url", image_url: { url: imageToDataUrl(block.image) } });
    else if ("document" in block && block.document) parts.push(documentToFilePart(block.document));
  }
  return parts;
}

export function systemToCanonical(system: SystemBlock[] | undefined): ChatMessage[] {
  const parts = partsFromBlocks(system ?? []);
  return parts.length > 0 ? [{ role: "system", content: collapse(parts) }] : [];
}

export function assistantToCanonical(blocks: ContentBlock[]): AssistantMessage {
  const text = blocks.flatMap((block) => (block.text === undefined ? [] : [block.text])).join("");
  const toolCalls: ToolCall[] = blocks.flatMap(({ toolUse }) =>
    toolUse ? [{ id: toolUse.toolUseId, type: "function" as const, function: { name: toolUse.name, arguments: JSON.stringify(toolUse.input ?? {}) } }] : [],
  );
  const thinking = blocks.flatMap(({ reasoningContent }) => (reasoningContent ? [thinkingFromReasoning(reasoningContent)].filter((block) => block !== undefined) : []));
  const message: AssistantMessage = { role: "assistant", content: text || (toolCalls.length > 0 ? null : "") };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thinking.length > 0) {
    message.thinking_blocks = thinking;
    message.reasoning_content = thinking.map((block) => (block.type === "thinking" ? block.thinking : "")).join("");
  }
  return message;
}

/** A Bedrock user turn carries tool results and the user's own content; canonically those are tool messages, then a user message. */
function userToCanonical(blocks: ContentBlock[]): ChatMessage[] {
  const toolMessages: ChatMessage[] = blocks.flatMap(({ toolResult }) =>
    toolResult ? [{ role: "tool" as const, tool_call_id: toolResult.toolUseId, content: collapseToolResult(partsFromBlocks(toolResult.content)) }] : [],
  );
  const parts = partsFromBlocks(blocks.filter((block) => !block.toolResult));
  return parts.length > 0 ? [...toolMessages, { role: "user", content: collapse(parts) }] : toolMessages;
}

const collapseToolResult = (parts: ContentPart[]) =>
  parts.every((part) => part.type === "text" && !part.cache_control) ? parts.map((part) => (part.type === "text" ? part.text : "")).join("\n") : parts;

export const messageToCanonical = (message: ConverseMessage): ChatMessage[] =>
  message.role === "assistant" ? [assistantToCanonical(message.content)] : userToCanonical(message.content);

function partToBlock(part: ContentPart, param: string): ContentBlock | undefined {
  switch (part.type) {
    case "text":
      return part.text ? { text: part.text } : undefined;
    case "image_url":
      return { image: imageFromUrl(part.image_url.url, `${param}.image_url`) };
    case "file":
      return { document: documentFromFilePart(part.file, `${param}.file`) };
  }
}

/** Canonical content (a string or parts) as Bedrock blocks; Bedrock rejects blank text blocks, so none are sent. */
function contentToBlocks(content: ChatMessage["content"], param: string): ContentBlock[] {
  if (typeof content === "string" || content === null) return content ? [{ text: content }] : [];
  return content.flatMap((part, index) => {
    const block = partToBlock(part, `${param}[${index}]`);
    return [...(block ? [block] : []), ...(part.cache_control ? [CACHE_POINT] : [])];
  });
}

function systemToBlocks(content: ChatMessage["content"], param: string): SystemBlock[] {
  return contentToBlocks(content, param).map((block, index) => {
    if (block.text === undefined && !block.cachePoint) throw badRequest("Bedrock takes only text in system messages", `${param}[${index}]`);
    return block.cachePoint ? CACHE_POINT : { text: block.text };
  });
}

function parseArguments(text: string, param: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("tool call arguments must be a JSON object", param);
  }
}

export function assistantToBlocks(message: ChatMessage, param: string): ContentBlock[] {
  const thinking: ThinkingBlock[] = message.thinking_blocks ?? [];
  const blocks: ContentBlock[] = thinking.map((block) => ({ reasoningContent: reasoningFromThinking(block) }));
  blocks.push(...contentToBlocks(message.content, `${param}.content`));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const input = parseArguments(call.function.arguments, `${param}.tool_calls[${index}].function.arguments`);
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input } });
  }
  return blocks;
}

function toolResultBlock(message: ChatMessage, param: string): ContentBlock {
  if (!message.tool_call_id) throw badRequest("a tool message needs tool_call_id", `${param}.tool_call_id`);
  const content = contentToBlocks(message.content, `${param}.content`).filter((block) => !block.cachePoint) as ToolResultItem[];
  return { toolResult: { toolUseId: message.tool_call_id, content } };
}

/** Canonical messages as Bedrock's system blocks and alternating user/assistant turns (tool results ride in user turns). */
export function messagesToConverse(messages: ChatMessage[]): { system: SystemBlock[]; messages: ConverseMessage[] } {
  const system: SystemBlock[] = [];
  const turns: ConverseMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const param = `messages[${index}]`;
    if (message.role === "system" || message.role === "developer") {
      system.push(...systemToBlocks(message.content, `${param}.content`));
      continue;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const content =
      message.role === "assistant" ? assistantToBlocks(message, param) : message.role === "tool" ? [toolResultBlock(message, param)] : contentToBlocks(message.content, `${param}.content`);
    const previous = turns.at(-1);
    if (previous?.role === role) previous.content.push(...content);
    else turns.push({ role, content });
  }
  return { system, messages: turns };
}
