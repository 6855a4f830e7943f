import type { ChatRequest, ToolChoice, ToolDefinition } from "../../canonical";
import { messagesFromCohere, messagesToCohere } from "./messages";
import type { CohereChatRequest, CohereTool } from "./request-schema";

/** Sampling penalties both formats know; OpenAI-format bodies carry them although canonical types do not name them. */
type WithPenalties = ChatRequest & { frequency_penalty?: number; presence_penalty?: number };

function responseFormatFromCohere(format: CohereChatRequest["response_format"]): ChatRequest["response_format"] {
  if (!format) return undefined;
  if (format.type === "text") return { type: "text" };
  return format.json_schema ? { type: "json_schema", json_schema: { name: "response", schema: format.json_schema } } : { type: "json_object" };
}

function thinkingFromCohere(thinking: CohereChatRequest["thinking"]): ChatRequest["thinking"] {
  if (thinking?.type === "disabled") return { type: "disabled" };
  return thinking?.token_budget ? { type: "enabled", budget_tokens: thinking.token_budget } : undefined;
}

const TOOL_CHOICE_FROM_COHERE = { REQUIRED: "required", NONE: "none" } as const;

export function chatRequestFromCohere(body: CohereChatRequest): ChatRequest {
  const request: WithPenalties = {
    model: body.model,
    messages: messagesFromCohere(body.messages, body.documents),
    stream: body.stream,
    max_tokens: body.max_tokens,
    temperature: body.temperature,
    top_p: body.p,
    top_k: body.k,
    seed: body.seed,
    stop: body.stop_sequences,
    frequency_penalty: body.frequency_penalty,
    presence_penalty: body.presence_penalty,
    tools: body.tools?.map((tool): ToolDefinition => ({ type: "function", function: { ...tool.function, ...(body.strict_tools ? { strict: true } : {}) } })),
    tool_choice: body.tool_choice ? TOOL_CHOICE_FROM_COHERE[body.tool_choice] : undefined,
    response_format: responseFormatFromCohere(body.response_format),
    thinking: thinkingFromCohere(body.thinking),
  };
  return request;
}

function responseFormatToCohere(format: ChatRequest["response_format"]) {
  if (!format) return undefined;
  if (format.type === "json_schema") return { type: "json_object", ...(format.json_schema.schema ? { json_schema: format.json_schema.schema } : {}) };
  return { type: format.type };
}

/** Cohere cannot force one named tool, so the other tools are left out and a tool call is required. */
function toolsToCohere(tools: ToolDefinition[] | undefined, choice: ToolChoice | undefined) {
  const named = typeof choice === "object" ? choice.function.name : undefined;
  const offered = named ? tools?.filter((tool) => tool.function.name === named) : tools;
  const cohereTools = offered?.map((tool): CohereTool => ({ type: "function", function: { name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters } }));
  const toolChoice = named || choice === "required" ? "REQUIRED" : choice === "none" ? "NONE" : undefined;
  return { tools: cohereTools, tool_choice: toolChoice, strict_tools: offered?.some((tool) => tool.function.strict) || undefined };
}

function thinkingToCohere(thinking: ChatRequest["thinking"]) {
  if (!thinking) return undefined;
  return thinking.type === "enabled" ? { type: "enabled", token_budget: thinking.budget_tokens } : { type: "disabled" };
}

export function chatRequestToCohere(request: WithPenalties): Record<string, unknown> {
  return {
    model: request.model,
    messages: messagesToCohere(request.messages),
    stream: request.stream ?? false,
    max_tokens: request.max_completion_tokens ?? request.max_tokens,
    temperature: request.temperature,
    p: request.top_p,
    k: request.top_k,
    seed: request.seed,
    stop_sequences: typeof request.stop === "string" ? [request.stop] : request.stop,
    frequency_penalty: request.frequency_penalty,
    presence_penalty: request.presence_penalty,
    ...toolsToCohere(request.tools, request.tool_choice),
    response_format: responseFormatToCohere(request.response_format),
    thinking: thinkingToCohere(request.thinking),
  };
}
