/**
 * A chat request translated from another format, as a hosted OpenAI-format API takes it. OpenAI
 * and the providers that mirror it refuse what their API does not define ("Unrecognized request
 * argument supplied: top_k"), so the canonical extras other formats bring stay behind: `top_k`,
 * Anthropic-style `thinking` (an effort, for reasoning models), signed thinking and reasoning
 * text on earlier turns, Gemini signatures on tool calls, cache markers and citations on parts.
 * OpenAI's reasoning models also refuse `max_tokens` and sampling other than the default.
 */

type Body = Record<string, unknown>;

/** Models that take `reasoning_effort`; others answer 400 to it. */
const REASONING_MODEL = /(^|\/)(o\d|gpt-5(?!-chat)|gpt-oss)/i;
/** OpenAI's own reasoning models: `max_completion_tokens` only, and only the default sampling. */
const OPENAI_REASONING_MODEL = /(^|\/)(o\d|gpt-5(?!-chat))/i;

const effortOfBudget = (budget: number) => (budget < 4096 ? "low" : budget < 16384 ? "medium" : "high");

function partOf(part: Body): Body {
  const { cache_control: _cache, citations: _citations, ...rest } = part;
  if (rest.type !== "file" || !rest.file || typeof rest.file !== "object") return rest;
  const { media_type: _mediaType, ...file } = rest.file as Body;
  return { ...rest, file };
}

/** An earlier turn's reasoning as plain text: its own, or the text of its thinking blocks. */
function reasoningTextOf(message: Body): string | undefined {
  if (typeof message.reasoning_content === "string") return message.reasoning_content;
  const blocks = Array.isArray(message.thinking_blocks) ? (message.thinking_blocks as Array<{ thinking?: unknown }>) : [];
  const text = blocks.flatMap((block) => (typeof block.thinking === "string" ? [block.thinking] : [])).join("\n");
  return text || undefined;
}

function messageOf(message: Body, keepReasoning: boolean): Body {
  const { thinking_blocks: _thinking, reasoning_content: _reasoning, ...rest } = message;
  if (Array.isArray(rest.content)) rest.content = rest.content.map((part) => partOf(part as Body));
  if (Array.isArray(rest.tool_calls)) rest.tool_calls = rest.tool_calls.map(({ extra_content: _signature, ...call }: Body) => call);
  const reasoning = keepReasoning && rest.role === "assistant" ? reasoningTextOf(message) : undefined;
  return reasoning === undefined ? rest : { ...rest, reasoning_content: reasoning };
}

export interface DefinedFieldsOptions {
  /**
   * The API defines `reasoning_content` on earlier assistant turns and needs it back (DeepSeek's
   * thinking mode refuses a tool-calling turn without it): it is kept, written from thinking
   * blocks when the turn came from another format.
   */
  keepReasoning?: boolean;
}

/** `model` is the provider's name for the model (the body may not name it: Gemini's names it in the path). */
export function onlyDefinedChatFields(body: Body, model: string, { keepReasoning = false }: DefinedFieldsOptions = {}): Body {
  const { top_k: _topK, thinking, ...rest } = body;
  const budget = (thinking as { type?: string; budget_tokens?: number } | undefined)?.type === "enabled" ? (thinking as { budget_tokens: number }).budget_tokens : undefined;
  // Other models answer 400 to any reasoning_effort, even one the client's format asked for.
  if (!REASONING_MODEL.test(model)) delete rest.reasoning_effort;
  else if (rest.reasoning_effort === undefined && budget !== undefined) rest.reasoning_effort = effortOfBudget(budget);
  if (OPENAI_REASONING_MODEL.test(model)) {
    if (rest.max_completion_tokens === undefined) rest.max_completion_tokens = rest.max_tokens;
    delete rest.max_tokens;
    delete rest.temperature;
    delete rest.top_p;
  }
  if (Array.isArray(rest.messages)) rest.messages = rest.messages.map((message) => messageOf(message as Body, keepReasoning));
  if (Array.isArray(rest.tools)) rest.tools = rest.tools.map(({ cache_control: _cache, ...tool }: Body) => tool);
  return rest;
}
