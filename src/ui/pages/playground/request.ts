import type { ChatBody, ChatMessage, ChatTool } from "./types";

/** What the form holds: text as typed, so a half-written number or schema is kept while it is fixed. */
export interface PlaygroundForm {
  system: string;
  prompt: string;
  /** Data URLs of the attached images. */
  images: string[];
  temperature: string;
  maxTokens: string;
  stream: boolean;
  /** A JSON array of tools: each `{name, description?, parameters}` (a JSON schema), or OpenAI's `{type: "function", function}`. */
  tools: string;
}

export const EMPTY_FORM: PlaygroundForm = { system: "", prompt: "", images: [], temperature: "", maxTokens: "", stream: true, tools: "" };

/** A field's problem, named as the form names the field. */
export type FormErrors = Partial<Record<"prompt" | "temperature" | "maxTokens" | "tools", string>>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function toolOf(entry: unknown, index: number): ChatTool {
  const spec = isObject(entry) && entry.type === "function" && isObject(entry.function) ? entry.function : entry;
  if (!isObject(spec) || typeof spec.name !== "string" || !spec.name) throw new Error(`tool ${index + 1} needs a "name"`);
  const parameters = spec.parameters ?? { type: "object", properties: {} };
  if (!isObject(parameters) || parameters.type !== "object") throw new Error(`tool "${spec.name}": "parameters" must be a JSON schema of type "object"`);
  const description = typeof spec.description === "string" && spec.description ? { description: spec.description } : {};
  return { type: "function", function: { name: spec.name, ...description, parameters } };
}

/** The tools typed in the editor, or the reason they cannot be sent. */
export function parseTools(text: string): ChatTool[] {
  if (!text.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).map(toolOf);
}

function numberIn(text: string, min: number, max: number, integer: boolean): number | undefined {
  if (!text.trim()) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) throw new Error(integer ? `a whole number from ${min} to ${max}` : `a number from ${min} to ${max}`);
  return value;
}

function messagesOf(form: PlaygroundForm): ChatMessage[] {
  const system: ChatMessage[] = form.system.trim() ? [{ role: "system", content: form.system }] : [];
  if (form.images.length === 0) return [...system, { role: "user", content: form.prompt }];
  const images = form.images.map((url) => ({ type: "image_url" as const, image_url: { url } }));
  return [...system, { role: "user", content: [{ type: "text", text: form.prompt }, ...images] }];
}

/** The body sent for one model, or the form's errors. */
export function chatBody(form: PlaygroundForm, model: string): { body: ChatBody } | { errors: FormErrors } {
  const errors: FormErrors = {};
  const attempt = <T>(field: keyof FormErrors, read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      errors[field] = (error as Error).message;
      return undefined;
    }
  };
  if (!form.prompt.trim()) errors.prompt = "Write a prompt.";
  const temperature = attempt("temperature", () => numberIn(form.temperature, 0, 2, false));
  const maxTokens = attempt("maxTokens", () => numberIn(form.maxTokens, 1, 1_000_000, true));
  const tools = attempt("tools", () => parseTools(form.tools));
  if (Object.keys(errors).length > 0) return { errors };
  const body: ChatBody = { model, messages: messagesOf(form) };
  if (form.stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  if (temperature !== undefined) body.temperature = temperature;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  if (tools && tools.length > 0) body.tools = tools;
  return { body };
}
