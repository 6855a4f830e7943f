import type { ChatMessage, ChatRequest } from "./canonical";

function textOf(message: ChatMessage): string {
  const content = typeof message.content === "string" ? message.content : (message.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n");
  const thinking = (message.thinking_blocks ?? []).map((block) => (block.type === "thinking" ? block.thinking : "")).join("\n");
  const calls = (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`).join("\n");
  return [thinking, content, calls].filter(Boolean).join("\n");
}

/**
 * An estimate of a request's input tokens for providers with no counting endpoint: OpenAI's
 * o200k tokenizer over the system prompt, the turns and the tool definitions. Media is not counted.
 */
export async function estimateInputTokens(request: ChatRequest): Promise<number> {
  // Loaded on first use: the tokenizer's tables are large and most deployments never need them.
  const { countTokens, encodeChat } = await import("gpt-tokenizer");
  const chat = request.messages.map((message) => ({ role: message.role === "developer" ? "system" : message.role, content: textOf(message) }));
  const tools = request.tools?.length ? countTokens(JSON.stringify(request.tools.map((tool) => tool.function))) : 0;
  return encodeChat(chat as Parameters<typeof encodeChat>[0], "gpt-4o").length + tools;
}
