import type { ChatMessage, ChatRequest } from "./canonical";

type Tokenizer = typeof import("gpt-tokenizer");

let tokenizer: Tokenizer | undefined;
let loading: Promise<Tokenizer> | undefined;

// Loaded on first use: the tokenizer's tables are large (seconds to load on a busy machine) and most deployments never need them.
const loadTokenizer = () => (loading ??= import("gpt-tokenizer").then((module) => (tokenizer = module)));

function textOf(message: ChatMessage): string {
  const content = typeof message.content === "string" ? message.content : (message.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n");
  const thinking = (message.thinking_blocks ?? []).map((block) => (block.type === "thinking" ? block.thinking : "")).join("\n");
  const calls = (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`).join("\n");
  return [thinking, content, calls].filter(Boolean).join("\n");
}

function countWith({ countTokens, encodeChat }: Tokenizer, request: ChatRequest): number {
  const chat = request.messages.map((message) => ({ role: message.role === "developer" ? "system" : message.role, content: textOf(message) }));
  const tools = request.tools?.length ? countTokens(JSON.stringify(request.tools.map((tool) => tool.function))) : 0;
  return encodeChat(chat as Parameters<typeof encodeChat>[0], "gpt-4o").length + tools;
}

/** About four characters a token: what English text averages in OpenAI's tokenizers. */
const CHARACTERS_PER_TOKEN = 4;

/**
 * An estimate of a request's input tokens for providers with no counting endpoint: OpenAI's
 * o200k tokenizer over the system prompt, the turns and the tool definitions. Media is not counted.
 */
export async function estimateInputTokens(request: ChatRequest): Promise<number> {
  return countWith(tokenizer ?? (await loadTokenizer()), request);
}

/**
 * The same estimate without waiting, for a reply under way (a stream's first event): the
 * tokenizer's count where a token count loaded it, else a character count. It never loads the
 * tokenizer itself: loading holds the event loop for a second or more, which no reply may wait on.
 */
export function estimateInputTokensNow(request: ChatRequest): number {
  if (tokenizer) return countWith(tokenizer, request);
  const characters = request.messages.reduce((sum, message) => sum + textOf(message).length, 0) + (request.tools?.length ? JSON.stringify(request.tools).length : 0);
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}
