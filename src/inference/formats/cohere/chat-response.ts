import type { ChatMessage, ChatResponse } from "../../canonical";
import { finishFromCohere, finishToCohere, isCohereCitation, usageFromCohere, usageToCohere } from "./mappings";
import type { CohereChatResponse, CohereResponseContent } from "./wire";

/** Cohere's reply names no model; the gateway reports the model it routed to in `x-gw-model`. */
export function chatResponseFromCohere(body: CohereChatResponse): ChatResponse {
  const content = body.message.content ?? [];
  const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  const thinking = content.flatMap((part) => (part.type === "thinking" ? [part.thinking] : [])).join("");
  const message: ChatResponse["choices"][number]["message"] = {
    role: "assistant",
    // Before tool calls Cohere writes its reasoning to `tool_plan`; other formats keep that text as content.
    content: text || body.message.tool_plan || null,
    ...(body.message.tool_calls?.length ? { tool_calls: body.message.tool_calls } : {}),
    ...(thinking ? { reasoning_content: thinking } : {}),
    ...(body.message.citations?.length ? { annotations: body.message.citations } : {}),
  };
  return {
    id: body.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "",
    choices: [{ index: 0, message, finish_reason: finishFromCohere(body.finish_reason) }],
    usage: usageFromCohere(body.usage),
  };
}

function textOf(content: ChatMessage["content"]): string {
  if (!content) return "";
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function reasoningOf(message: ChatMessage): string {
  return message.reasoning_content ?? message.thinking_blocks?.map((block) => (block.type === "thinking" ? block.thinking : "")).join("") ?? "";
}

export function chatResponseToCohere(response: ChatResponse): CohereChatResponse {
  const choice = response.choices[0];
  const message = choice?.message ?? { role: "assistant" as const, content: null };
  const text = textOf(message.content);
  const reasoning = reasoningOf(message);
  const toolCalls = message.tool_calls ?? [];
  const content: CohereResponseContent[] = [...(reasoning ? [{ type: "thinking" as const, thinking: reasoning }] : [])];
  if (toolCalls.length === 0 && text) content.push({ type: "text", text });
  const citations = (message.annotations ?? []).filter(isCohereCitation);
  return {
    id: response.id,
    finish_reason: finishToCohere(choice?.finish_reason ?? null, choice?.stop_sequence),
    message: {
      role: "assistant",
      ...(content.length ? { content } : {}),
      ...(toolCalls.length ? { tool_plan: text, tool_calls: toolCalls.map(({ id, type, function: fn }) => ({ id, type, function: { name: fn.name, arguments: fn.arguments } })) } : {}),
      ...(citations.length ? { citations } : {}),
    },
    usage: usageToCohere(response.usage),
  };
}
