/** A turn of a chat request in any format: OpenAI and Anthropic `content`, Gemini `parts`. */
export type Turn = { role?: unknown; content?: unknown; parts?: unknown };

/** The text of a turn's content: a string, or the `text` of its parts, a line each. */
export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (part && typeof (part as { text?: unknown }).text === "string") text += `${(part as { text: string }).text}\n`;
  }
  return text;
}

export const textOfTurn = (turn: Turn) => textOfContent(turn.content ?? turn.parts);

/** The turns of a Chat Completions, Anthropic, Gemini or Responses body; a lone string input or prompt as one user turn. */
export function turnsOf(body: Record<string, unknown>): Turn[] {
  const turns = [body.messages, body.input, body.contents].find(Array.isArray) as Turn[] | undefined;
  if (turns) return turns.filter((turn) => turn !== null && typeof turn === "object");
  const single = typeof body.input === "string" ? body.input : typeof body.prompt === "string" ? body.prompt : undefined;
  return single === undefined ? [] : [{ role: "user", content: single }];
}

/** The text of the last user turn that has any (a Responses item without a role counts as the user's). */
export function lastUserText(turns: readonly Turn[]): string {
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index]!;
    if (turn.role !== "user" && turn.role !== undefined) continue;
    const text = textOfTurn(turn);
    if (text) return text;
  }
  return "";
}
