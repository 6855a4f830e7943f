import type { ChatMessage, ChatRequest, HostedTool, ToolChoice, ToolDefinition } from "../../canonical";
import { thinkingBlocksOf, toolUseBlocksOf } from "./assistant-blocks";
import { partToBlock } from "./content";
import { anthropicSchema } from "./output-schema";
import type { ContentBlock, MessageParam, MessagesRequest, TextBlock, ToolChoiceParam, ToolParam } from "./wire";

/** Anthropic requires `max_tokens`; OpenAI-format clients may leave it out: the model's known limit, else this. */
const DEFAULT_MAX_TOKENS = 4096;
const MIN_THINKING_BUDGET = 1024;
const EFFORT_BUDGET = { minimal: 1024, low: 1024, medium: 2048, high: 4096 } as const;

const blocksOf = (content: ChatMessage["content"]): ContentBlock[] =>
  typeof content === "string" ? (content ? [{ type: "text", text: content }] : []) : (content ?? []).map(partToBlock);

function systemOf(messages: ChatMessage[]): MessagesRequest["system"] {
  const system = messages.filter((message) => message.role === "system" || message.role === "developer");
  if (system.length === 0) return undefined;
  if (system.every((message) => typeof message.content === "string")) return system.map((message) => message.content).join("\n\n");
  return system.flatMap((message) => blocksOf(message.content)).filter((block): block is TextBlock => block.type === "text");
}

function assistantBlocks(message: ChatMessage): ContentBlock[] {
  return [...thinkingBlocksOf(message, false), ...blocksOf(message.content), ...toolUseBlocksOf(message)];
}

function toolResultBlock(message: ChatMessage): ContentBlock {
  const content = typeof message.content === "string" || message.content === null ? (message.content ?? "") : message.content.map(partToBlock);
  return { type: "tool_result", tool_use_id: message.tool_call_id ?? "", content };
}

function turnOf(message: ChatMessage): MessageParam | undefined {
  if (message.role === "assistant") return { role: "assistant", content: assistantBlocks(message) };
  if (message.role === "tool") return { role: "user", content: [toolResultBlock(message)] };
  if (message.role === "user") return { role: "user", content: typeof message.content === "string" ? message.content : blocksOf(message.content) };
  return undefined;
}

const turnBlocks = (content: MessageParam["content"]): ContentBlock[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);

/** Consecutive turns of one role (tool results, then the user's next words) merge into one, as Anthropic expects. */
function conversationOf(messages: ChatMessage[]): MessageParam[] {
  const turns: MessageParam[] = [];
  for (const message of messages) {
    const turn = turnOf(message);
    if (!turn || turn.content.length === 0) continue;
    const previous = turns.at(-1);
    if (previous?.role === turn.role) previous.content = [...turnBlocks(previous.content), ...turnBlocks(turn.content)];
    else turns.push(turn);
  }
  return turns;
}

function toolParam(tool: ToolDefinition): ToolParam {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description ? { description } : {}),
    input_schema: parameters ?? { type: "object", properties: {} },
    ...(tool.cache_control ? { cache_control: tool.cache_control } : {}),
  };
}

/** Anthropic's server-side web search, for a client's hosted web search. */
const webSearchTool = (tool: HostedTool): ToolParam => ({ type: "web_search_20250305", name: "web_search", ...(tool.allowed_domains ? { allowed_domains: tool.allowed_domains } : {}) });

function toolParams(request: ChatRequest): ToolParam[] | undefined {
  const tools = [...(request.tools ?? []).map(toolParam), ...(request.hosted_tools ?? []).map(webSearchTool)];
  return tools.length > 0 ? tools : undefined;
}

function toolChoiceParam(choice: ToolChoice | undefined, parallel: boolean | undefined): ToolChoiceParam | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: "auto", ...disable } : undefined;
  if (choice === "required") return { type: "any", ...disable };
  if (typeof choice === "string") return { type: choice, ...disable };
  return { type: "tool", name: choice.function.name, ...disable };
}

/**
 * `reasoning_effort` becomes a thinking budget of at most half of `max_tokens`, so that the answer
 * keeps the other half; no thinking when the smallest budget Anthropic takes does not fit.
 */
function requestedThinking(request: ChatRequest, maxTokens: number): MessagesRequest["thinking"] {
  if (request.thinking) return request.thinking;
  if (!request.reasoning_effort) return undefined;
  const budget = Math.min(EFFORT_BUDGET[request.reasoning_effort], Math.floor(maxTokens / 2));
  return budget >= MIN_THINKING_BUDGET ? { type: "enabled", budget_tokens: budget } : undefined;
}

/**
 * The thinking asked for, unless the conversation ends in a turn of tool calls without the signed
 * thinking that led to it: Anthropic refuses that while thinking is on, and most OpenAI-format
 * clients do not keep `thinking_blocks`. Such a turn is answered without thinking instead.
 */
function thinkingOf(request: ChatRequest, maxTokens: number, toolChoice: ToolChoiceParam | undefined): MessagesRequest["thinking"] {
  const thinking = requestedThinking(request, maxTokens);
  if (thinking?.type !== "enabled") return thinking;
  // Anthropic also refuses thinking while tool_choice forces a tool.
  if (toolChoice?.type === "any" || toolChoice?.type === "tool") return undefined;
  const lastTurn = request.messages.findLast((message) => message.role === "assistant");
  return lastTurn?.tool_calls?.length && thinkingBlocksOf(lastTurn, false).length === 0 ? undefined : thinking;
}

/**
 * Sampling as Anthropic takes it. Claude 4.1 and later refuse `temperature` with `top_p`, and
 * OpenAI-format clients often send both (top_p 1, a no-op): temperature wins. Thinking takes
 * neither a temperature but 1, nor top_k, nor top_p under 0.95; those are left out.
 */
function samplingOf(request: ChatRequest, thinking: boolean): Pick<MessagesRequest, "temperature" | "top_p" | "top_k"> {
  // Anthropic's temperature range is 0..1; OpenAI's reaches 2.
  const temperature = request.temperature === undefined ? undefined : Math.min(1, request.temperature);
  if (thinking) return { temperature: temperature === 1 ? 1 : undefined, top_p: temperature === undefined && request.top_p !== undefined && request.top_p >= 0.95 ? request.top_p : undefined };
  return { temperature, top_p: temperature === undefined ? request.top_p : undefined, top_k: request.top_k };
}

const asArray = (stop: string | string[] | undefined) => (stop === undefined ? undefined : Array.isArray(stop) ? stop : [stop]);

/** The canonical chat request as an Anthropic Messages request. */
export function canonicalToMessagesRequest(request: ChatRequest): MessagesRequest {
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? request.output_limit ?? DEFAULT_MAX_TOKENS;
  const hasTools = Boolean(request.tools?.length);
  const format = request.response_format?.type === "json_schema" ? request.response_format.json_schema.schema : undefined;
  const toolChoice = hasTools ? toolChoiceParam(request.tool_choice, request.parallel_tool_calls) : undefined;
  const thinking = thinkingOf(request, maxTokens, toolChoice);
  return {
    model: request.model,
    max_tokens: maxTokens,
    messages: conversationOf(request.messages),
    system: systemOf(request.messages),
    ...samplingOf(request, thinking?.type === "enabled"),
    stop_sequences: asArray(request.stop),
    stream: request.stream,
    tools: toolParams(request),
    tool_choice: toolChoice,
    thinking,
    metadata: request.user ? { user_id: request.user } : undefined,
    output_config: format ? { format: { type: "json_schema", schema: anthropicSchema(format) } } : undefined,
  };
}
