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

/** The version parameters the Messages API takes under the same meaning, and their names there. */
const MESSAGES_PARAMETERS: Record<string, string> = { max_tokens: "max_tokens", temperature: "temperature", top_p: "top_p", stop: "stop_sequences" };
const isInstruction = (message: Message) => message.role === "system" || message.role === "developer";
const textBlocks = (content: unknown): Message[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as Message[]).filter((part) => typeof part.text === "string").map((part) => ({ type: "text", text: part.text })) : [];

/**
 * The Anthropic Messages body: the prompt's system and developer messages become `system` (before
 * any the run sends), the rest and the run's turns `messages`; of the version's parameters those
 * the Messages API shares (max_tokens, temperature, top_p, stop as stop_sequences).
 */
export function messagesBody(prompt: RenderedPrompt): Body {
  const shared = Object.entries(prompt.parameters).flatMap(([name, value]) => (MESSAGES_PARAMETERS[name] ? [[MESSAGES_PARAMETERS[name], name === "stop" && typeof value === "string" ? [value] : value]] : []));
  const { system, ...overrides } = prompt.overrides;
  const instructions = [...prompt.messages.filter(isInstruction).flatMap((message) => textBlocks(message.content)), ...textBlocks(system)];
  const body: Body = { ...Object.fromEntries(shared), ...overrides, model: prompt.model, messages: [...prompt.messages.filter((message) => !isInstruction(message)), ...prompt.turns] };
  if (instructions.length > 0) body.system = instructions;
  if (body.max_tokens === undefined) throw badRequest("the Messages API needs max_tokens: give it in the run or the version's parameters", "max_tokens");
  return body;
}
