/**
 * A model scripted for one tool loop, which every mock upstream can play in its own wire format:
 * while no tool result has come back, it calls `tool` with `input`; once one has, it answers with
 * what the tools returned. Set on a mock (`toolLoop`), it takes precedence over the mock's echo
 * whenever the request offers that tool.
 */
export interface ToolLoop {
  tool: string;
  input: Record<string, unknown>;
  /** Text the model writes before its call, as Claude often does (the Anthropic mock writes it). */
  preamble?: string;
}

export type LoopTurn = { call: { id: string; name: string; arguments: string } } | { text: string };

/** What a tool loop answers, in the mock's own words: the tool results, joined. */
export const loopAnswer = (results: readonly string[]) => `the tool said: ${results.join(" | ")}`;

/** The scripted turn for a request offering `offered` tools and carrying `results`; undefined when the loop's tool is not offered. */
export function loopTurn(loop: ToolLoop | undefined, offered: readonly string[], results: readonly string[]): LoopTurn | undefined {
  if (!loop || !offered.includes(loop.tool)) return undefined;
  if (results.length === 0) return { call: { id: "call_loop_1", name: loop.tool, arguments: JSON.stringify(loop.input) } };
  return { text: loopAnswer(results) };
}

/** A tool result's text, whatever shape the format gives it (a string, text parts, an object). */
export function resultText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((part) => (typeof part === "string" ? part : String((part as { text?: unknown })?.text ?? ""))).join("");
  return JSON.stringify(output);
}
