import Mustache from "mustache";
import { badRequest } from "../http/errors";
import type { PromptVariable } from "./schemas";

type Message = Record<string, unknown>;
type Part = Record<string, unknown>;

/** The template texts of a message: its content, or each part's `text`. */
function textsOf(message: Message): string[] {
  if (typeof message.content === "string") return [message.content];
  if (!Array.isArray(message.content)) return [];
  return (message.content as Part[]).flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
}

type Token = [string, string, number, number, Token[]?];

function namesIn(tokens: Token[], names: Set<string>): Set<string> {
  for (const [type, value, , , children] of tokens) {
    if (type === "name" || type === "&" || type === "#" || type === "^") names.add(value.split(".")[0]!);
    if (children) namesIn(children, names);
  }
  return names;
}

/** The variables a template's messages use, in order of first use; a template that does not parse is a 400 naming the message. */
export function variablesUsed(messages: readonly Message[]): string[] {
  const names = new Set<string>();
  messages.forEach((message, index) => {
    for (const text of textsOf(message)) {
      try {
        namesIn(Mustache.parse(text) as Token[], names);
      } catch (error) {
        throw badRequest(`messages[${index}] is not a valid template: ${(error as Error).message}`, `messages[${index}].content`);
      }
    }
  });
  return [...names];
}

/** The declared variables, and the ones the messages use without declaring them as required strings. */
export function declaredVariables(messages: readonly Message[], declared: readonly PromptVariable[] = []): PromptVariable[] {
  const known = new Set(declared.map((variable) => variable.name));
  const undeclared = variablesUsed(messages).filter((name) => !known.has(name));
  return [...declared, ...undeclared.map((name) => ({ name, type: "string" as const, required: true }))];
}

const typeOf = (value: unknown) => (Array.isArray(value) ? "array" : value === null ? "null" : typeof value);

/** The values a run renders with: given, else defaulted; a missing required one or a wrong type is a 400 naming `variables.<name>`. */
export function variableValues(variables: readonly PromptVariable[], given: Record<string, unknown> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const variable of variables) {
    const value = Object.hasOwn(given, variable.name) ? given[variable.name] : variable.default;
    const param = `variables.${variable.name}`;
    if (value === undefined) {
      if (variable.required === false) continue;
      throw badRequest(`the prompt needs the variable '${variable.name}'`, param);
    }
    const expected = variable.type ?? "string";
    if (typeOf(value) !== expected) throw badRequest(`variable '${variable.name}' must be ${expected === "array" || expected === "object" ? "an" : "a"} ${expected}, got ${typeOf(value)}`, param);
    values[variable.name] = value;
  }
  return values;
}

/** Values go in as written: prompts are not HTML, and objects read as JSON. */
const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The messages with every template text rendered with `values`. */
export function renderedMessages(messages: readonly Message[], values: Record<string, unknown>): Message[] {
  const render = (text: string) => Mustache.render(text, values, {}, { escape: asText });
  return messages.map((message) => {
    if (typeof message.content === "string") return { ...message, content: render(message.content) };
    if (!Array.isArray(message.content)) return message;
    return { ...message, content: (message.content as Part[]).map((part) => (typeof part.text === "string" ? { ...part, text: render(part.text) } : part)) };
  });
}
