import { lastUserText, textOfContent, textOfTurn, type Turn, turnsOf } from "../../inference/turn-text";

/** What a chat request shows of its difficulty before any model reads it. */
export interface Signals {
  /** Characters of text in the system prompt and every turn. */
  characters: number;
  /** Fenced code blocks (```) across the request. */
  codeBlocks: number;
  /** Tools (functions) the request offers the model. */
  tools: number;
  /** Turns so far: messages, input items or contents. */
  depth: number;
  /** The reasoning the client asked for explicitly: `reasoning_effort`, `reasoning.effort`, Anthropic's `thinking`, Gemini's `thinkingConfig`. */
  reasoning: "none" | "low" | "medium" | "high";
  /** The last user turn's text: what the reference prompts are compared with. */
  lastUserText: string;
}

function systemTextOf(body: Record<string, unknown>): string {
  const system = body.system ?? body.instructions ?? (body.systemInstruction as Turn | undefined)?.parts;
  return textOfContent(system);
}

function toolCountOf(body: Record<string, unknown>): number {
  if (!Array.isArray(body.tools)) return 0;
  // Gemini groups its functions in one tool.
  return body.tools.reduce((count: number, tool) => count + (Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations.length : 1), 0);
}

const EFFORTS = new Set(["low", "medium", "high"]);

function reasoningOf(body: Record<string, unknown>): Signals["reasoning"] {
  const effort = body.reasoning_effort ?? (body.reasoning as { effort?: unknown } | undefined)?.effort;
  if (effort === "minimal") return "low";
  if (effort === "xhigh") return "high";
  if (typeof effort === "string" && EFFORTS.has(effort)) return effort as Signals["reasoning"];
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking?.type === "enabled") return typeof thinking.budget_tokens === "number" && thinking.budget_tokens < 4096 ? "medium" : "high";
  const gemini = (body.generationConfig as { thinkingConfig?: { thinkingBudget?: unknown; thinkingLevel?: unknown } } | undefined)?.thinkingConfig;
  if (gemini?.thinkingLevel === "high" || (typeof gemini?.thinkingBudget === "number" && (gemini.thinkingBudget >= 4096 || gemini.thinkingBudget < 0))) return "high";
  if (typeof gemini?.thinkingBudget === "number" && gemini.thinkingBudget > 0) return "medium";
  return "none";
}

function countFences(text: string): number {
  let fences = 0;
  for (let at = text.indexOf("```"); at >= 0; at = text.indexOf("```", at + 3)) fences++;
  return Math.floor(fences / 2);
}

/** Reads the signals of an OpenAI, Anthropic, Gemini or Responses request body. */
export function signalsOf(body: Record<string, unknown>): Signals {
  const turns = turnsOf(body);
  let characters = 0;
  let codeBlocks = 0;
  for (const text of [systemTextOf(body), ...turns.map(textOfTurn)]) {
    characters += text.length;
    codeBlocks += countFences(text);
  }
  return { characters, codeBlocks, tools: toolCountOf(body), depth: turns.length, reasoning: reasoningOf(body), lastUserText: lastUserText(turns) };
}
