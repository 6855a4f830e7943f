/** Headers that name a conversation: the gateway's own, Claude Code's, Codex's. */
const SESSION_HEADERS = ["x-gw-session-id", "x-claude-code-session-id", "session_id", "conversation_id"] as const;
const MAX_ID_LENGTH = 200;

type Message = { role?: unknown };

/** What opens a conversation: its system prompt and first user turn, in any of the formats' bodies. */
function openingOf(body: Record<string, unknown>): unknown[] | undefined {
  const messages = [body.messages, body.input, body.contents].find(Array.isArray) as Message[] | undefined;
  const system = [body.system, body.instructions, body.systemInstruction].filter((part) => part !== undefined);
  if (!messages) return typeof body.input === "string" ? [...system, body.input] : undefined;
  const firstUser = messages.findIndex((message) => message?.role === "user");
  if (firstUser < 0) return undefined;
  return [...system, ...messages.slice(0, firstUser + 1)];
}

/**
 * The conversation a request belongs to: a session header the client sent, else that of the
 * Responses reply its `previous_response_id` names (when this node answered it), else a hash of
 * its system prompt and first user turn (which every later turn repeats); undefined when it has none.
 */
export function conversationIdOf(headers: Headers, body: Record<string, unknown>, conversationOfResponse: (id: string) => string | undefined): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = headers.get(name);
    if (value) return value.slice(0, MAX_ID_LENGTH);
  }
  const previous = typeof body.previous_response_id === "string" ? conversationOfResponse(body.previous_response_id) : undefined;
  if (previous !== undefined) return previous;
  const opening = openingOf(body);
  return opening && `opening:${Bun.hash(JSON.stringify(opening)).toString(16)}`;
}
