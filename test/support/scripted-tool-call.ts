/**
 * A test scripts the model's tool call in its prompt as `[call:<tool> <JSON input>]`: a mock
 * whose request offers a tool of that name calls it with that input, then answers what the tool
 * said. Agents such as Claude Code offer a dozen tools at once; the script names the one to call.
 */
const SCRIPTED = /\[call:(\S+) (\{.*?\})\]/s;

export function scriptedToolCall(text: string, offered: readonly string[]): { name: string; input: Record<string, unknown> } | undefined {
  const match = SCRIPTED.exec(text);
  if (!match || !offered.includes(match[1]!)) return undefined;
  return { name: match[1]!, input: JSON.parse(match[2]!) as Record<string, unknown> };
}
