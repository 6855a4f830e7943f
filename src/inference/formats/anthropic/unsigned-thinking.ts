type Body = Record<string, unknown>;
type Block = { type?: unknown; signature?: unknown };
type Message = { role?: unknown; content?: unknown };

/** A thinking block the gateway wrote from another provider's reasoning (DeepSeek's): it has no signature. */
const isUnsigned = (block: unknown) => (block as Block | null)?.type === "thinking" && !(block as Block).signature;
const blocksOf = (message: Message): Block[] => (Array.isArray(message.content) ? (message.content as Block[]) : []);
const holdsUnsigned = (message: Message) => message.role === "assistant" && blocksOf(message).some(isUnsigned);

/** With thinking on, Anthropic wants the last assistant turn, when it called a tool, to open with a thinking block. */
function lastToolTurnLacksThinking(messages: Message[]): boolean {
  const last = messages.findLast((message) => message.role === "assistant");
  const blocks = last ? blocksOf(last) : [];
  return blocks.some((block) => block.type === "tool_use") && blocks[0]?.type !== "thinking" && blocks[0]?.type !== "redacted_thinking";
}

/**
 * A Messages body for Anthropic's own API, from a conversation that another provider took part
 * in: without the unsigned thinking blocks its turns carry, which Anthropic refuses. If that
 * leaves the last tool-calling turn without thinking, this request runs without thinking, the one
 * way Anthropic takes it. The body itself when it holds none.
 */
export function withoutUnsignedThinking(body: Body): Body {
  const messages = body.messages;
  if (!Array.isArray(messages) || !(messages as Message[]).some(holdsUnsigned)) return body;
  const cleaned = (messages as Message[]).map((message) => (holdsUnsigned(message) ? { ...message, content: blocksOf(message).filter((block) => !isUnsigned(block)) } : message));
  const { thinking, ...rest } = body;
  return thinking !== undefined && lastToolTurnLacksThinking(cleaned) ? { ...rest, messages: cleaned } : { ...body, messages: cleaned };
}
