import { badRequest } from "../../../http/errors";
import type { ChatMessage, ChatRequest, ContentPart, ThinkingBlock, ToolCall, ToolChoice, ToolDefinition } from "../../canonical";
import { blockToPart, simplifiedContent } from "./content";
import type { ContentBlock, MessageParam, MessagesRequest, ToolChoiceParam, ToolParam } from "./wire";

const blocksOf = (content: string | ContentBlock[]): ContentBlock[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);

const partsOf = (blocks: ContentBlock[]) => blocks.map(blockToPart).filter((part): part is ContentPart => part !== undefined);

const contentOf = (content: MessageParam["content"]) => (typeof content === "string" ? content : simplifiedContent(partsOf(content)));

function systemMessages(system: MessagesRequest["system"]): ChatMessage[] {
  if (system === undefined || system.length === 0) return [];
  return [{ role: "system", content: contentOf(system) }];
}

/** A `tool_result` block is a `tool` message; its cache breakpoint moves onto its last part. */
function toolMessage(block: Extract<ContentBlock, { type: "tool_result" }>): ChatMessage {
  const content = block.content ?? "";
  if (!block.cache_control) return { role: "tool", tool_call_id: block.tool_use_id, content: typeof content === "string" ? content : simplifiedContent(partsOf(content)) };
  const parts = partsOf(blocksOf(content));
  const last = parts.pop();
  return { role: "tool", tool_call_id: block.tool_use_id, content: last ? [...parts, { ...last, cache_control: block.cache_control }] : "" };
}

/** Tool results come first: OpenAI wants them right after the assistant turn that asked for them. */
function userMessages(blocks: ContentBlock[]): ChatMessage[] {
  const results = blocks.flatMap((block) => (block.type === "tool_result" ? [toolMessage(block)] : []));
  const parts = partsOf(blocks.filter((block) => block.type !== "tool_result"));
  return parts.length > 0 ? [...results, { role: "user", content: simplifiedContent(parts) }] : results;
}

function assistantMessage(blocks: ContentBlock[]): ChatMessage {
  const thinking: ThinkingBlock[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    if (block.type === "thinking") thinking.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    if (block.type === "redacted_thinking") thinking.push({ type: "redacted_thinking", data: block.data });
    if (block.type === "tool_use") toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
  }
  const parts = partsOf(blocks.filter((block) => block.type === "text"));
  return {
    role: "assistant",
    content: parts.length > 0 ? simplifiedContent(parts) : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(thinking.length > 0 ? { thinking_blocks: thinking } : {}),
  };
}

/** A system message mid-conversation stays a system message where it stands, never a user turn. */
function conversationMessages(message: MessageParam, index: number): ChatMessage[] {
  switch (message.role) {
    case "assistant":
      return [assistantMessage(blocksOf(message.content))];
    case "system":
      return [{ role: "system", content: contentOf(message.content) }];
    case "user":
      return typeof message.content === "string" ? [{ role: "user", content: message.content }] : userMessages(message.content);
    default:
      throw badRequest(`messages[${index}].role must be one of user, assistant, system: role '${message.role}' reaches only a provider of Anthropic's format`, `messages[${index}].role`);
  }
}

/** Server tools (web search, code execution...) have no input schema and no canonical twin. */
function toolsToCanonical(tools: ToolParam[] | undefined): ToolDefinition[] | undefined {
  const custom = tools?.filter((tool) => tool.input_schema !== undefined);
  if (!custom?.length) return undefined;
  return custom.map((tool) => ({
    type: "function",
    function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.input_schema },
    ...(tool.cache_control ? { cache_control: tool.cache_control } : {}),
  }));
}

function toolChoiceToCanonical(choice: ToolChoiceParam | undefined): ToolChoice | undefined {
  switch (choice?.type) {
    case "auto":
    case "none":
      return choice.type;
    case "any":
      return "required";
    case "tool":
      return { type: "function", function: { name: choice.name } };
    default:
      return undefined;
  }
}

const EFFORT: Record<string, ChatRequest["reasoning_effort"]> = { low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

function outputConfigToCanonical({ output_config: config, output_format }: MessagesRequest): Pick<ChatRequest, "reasoning_effort" | "response_format"> {
  const format = config?.format ?? output_format;
  return {
    reasoning_effort: config?.effort ? EFFORT[config.effort] : undefined,
    response_format: format ? { type: "json_schema", json_schema: { name: "output", schema: format.schema, strict: true } } : undefined,
  };
}

/** An Anthropic Messages request as the canonical chat request. */
export function messagesRequestToCanonical(body: MessagesRequest): ChatRequest {
  const thinking = body.thinking?.type === "enabled" || body.thinking?.type === "disabled" ? body.thinking : undefined;
  return {
    model: body.model,
    messages: [...systemMessages(body.system), ...body.messages.flatMap((message, index) => conversationMessages(message, index))],
    max_tokens: body.max_tokens,
    temperature: body.temperature,
    top_p: body.top_p,
    top_k: body.top_k,
    stop: body.stop_sequences,
    stream: body.stream,
    tools: toolsToCanonical(body.tools),
    tool_choice: toolChoiceToCanonical(body.tool_choice),
    parallel_tool_calls: body.tool_choice?.disable_parallel_tool_use ? false : undefined,
    thinking,
    user: body.metadata?.user_id,
    ...outputConfigToCanonical(body),
  };
}
