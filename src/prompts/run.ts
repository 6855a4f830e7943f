import { badRequest } from "../http/errors";
import { declaredVariables, renderedMessages, variableValues } from "./render";
import type { PromptRunFields } from "./schemas";
import { LATEST, type PromptStore } from "./store";

type Message = Record<string, unknown>;
type Body = { model: string; messages: Message[] } & Record<string, unknown>;

/** A prompt rendered for a run, before it takes a wire format. */
export interface RenderedPrompt {
  /** The version's messages, includes expanded, variables rendered. */
  messages: Message[];
  /** The run's turns, sent after the prompt's. */
  turns: Message[];
  model: string;
  parameters: Record<string, unknown>;
  /** The run's other fields: parameters that override the version's. */
  overrides: Record<string, unknown>;
  /** What the log row records of the prompt: `prompt`, `prompt_version`, and `prompt_label` unless a version was named. */
  metadata: Record<string, string>;
}

/** Renders a run of prompt `name`: its version by label or number (else the newest), variables checked by declared type. */
export async function renderPrompt(store: PromptStore, name: string, { variables, label, version, messages = [], model, ...overrides }: PromptRunFields): Promise<RenderedPrompt> {
  if (label !== undefined && version !== undefined) throw badRequest("name a label or a version, not both", "version");
  const row = await store.runVersion(name, { label, version });
  const expanded = await store.expandedMessages(row);
  // Included prompts' variables are required strings unless this version declares them.
  const values = variableValues(declaredVariables(expanded, row.template.variables), variables);
  const chosenModel = model ?? row.template.model;
  if (!chosenModel) throw badRequest(`prompt '${name}' version ${row.version} names no model; give one`, "model");
  const metadata: Record<string, string> = { prompt: name, prompt_version: String(row.version) };
  if (version === undefined) metadata.prompt_label = label ?? LATEST;
  return { messages: renderedMessages(expanded, values), turns: messages, model: chosenModel, parameters: row.template.parameters, overrides, metadata };
}

/** The OpenAI chat body: the version's parameters, the run's overrides, the rendered messages then the run's turns. */
export const chatBody = (prompt: RenderedPrompt): Body => ({ ...prompt.parameters, ...prompt.overrides, model: prompt.model, messages: [...prompt.messages, ...prompt.turns] });

/** The version's parameters another API takes under the same meaning, under its names there (`names`: ours to theirs). */
function sharedParameters(parameters: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parameters).flatMap(([name, value]) => (names[name] ? [[names[name], name === "stop" && typeof value === "string" ? [value] : value]] : [])));
}

const MESSAGES_PARAMETERS: Record<string, string> = { max_tokens: "max_tokens", temperature: "temperature", top_p: "top_p", stop: "stop_sequences" };
const RESPONSES_PARAMETERS: Record<string, string> = { max_tokens: "max_output_tokens", max_completion_tokens: "max_output_tokens", temperature: "temperature", top_p: "top_p" };
const isInstruction = (message: Message) => message.role === "system" || message.role === "developer";
const textBlocks = (content: unknown): Message[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as Message[]).filter((part) => typeof part.text === "string").map((part) => ({ type: "text", text: part.text })) : [];

/**
 * The Anthropic Messages body: the prompt's system and developer messages become `system` (before
 * any the run sends), the rest and the run's turns `messages`; of the version's parameters those
 * the Messages API shares (max_tokens, temperature, top_p, stop as stop_sequences).
 */
export function messagesBody(prompt: RenderedPrompt): Body {
  const { system, ...overrides } = prompt.overrides;
  const instructions = [...prompt.messages.filter(isInstruction).flatMap((message) => textBlocks(message.content)), ...textBlocks(system)];
  const body: Body = { ...sharedParameters(prompt.parameters, MESSAGES_PARAMETERS), ...overrides, model: prompt.model, messages: [...prompt.messages.filter((message) => !isInstruction(message)), ...prompt.turns] };
  if (instructions.length > 0) body.system = instructions;
  if (body.max_tokens === undefined) throw badRequest("the Messages API needs max_tokens: give it in the run or the version's parameters", "max_tokens");
  return body;
}

/** A chat message as a Responses input item: its text parts typed as that API types them. */
function inputItem(message: Message): Message {
  if (!Array.isArray(message.content)) return message;
  const textType = message.role === "assistant" ? "output_text" : "input_text";
  return { ...message, content: (message.content as Message[]).map((part) => (part.type === "text" ? { ...part, type: textType } : part)) };
}

/**
 * The Responses body: the prompt's messages, the run's turns and then its `input` as input items;
 * of the version's parameters those the Responses API shares (max_tokens as max_output_tokens,
 * temperature, top_p).
 */
export function responsesBody(prompt: RenderedPrompt): { model: string; input: Message[] } & Record<string, unknown> {
  const { input, ...overrides } = prompt.overrides;
  const given = typeof input === "string" ? [{ role: "user", content: input }] : Array.isArray(input) ? (input as Message[]) : [];
  return { ...sharedParameters(prompt.parameters, RESPONSES_PARAMETERS), ...overrides, model: prompt.model, input: [...prompt.messages, ...prompt.turns].map(inputItem).concat(given) };
}
