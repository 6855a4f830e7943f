import type { PromptVersion } from "../../api/types";

/** A message as the editor holds it: an include is kept as written, text as typed. */
export type EditedMessage = { role: string; content: string } | { include: { name: string; label?: string; version?: number } };

const VARIABLE = /{{\s*[#^&{]?\s*([A-Za-z_][A-Za-z0-9_]*)/g;

/** The variables the messages use, in order of first use, as Mustache tags name them (closing tags aside). */
export function variablesIn(messages: readonly EditedMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages) if ("content" in message) for (const match of message.content.matchAll(VARIABLE)) names.add(match[1]!);
  return [...names];
}

/** A version's messages for the editor: content parts joined into their text. */
export function editedMessages(version: PromptVersion | undefined): EditedMessage[] {
  if (!version) return [{ role: "system", content: "" }, { role: "user", content: "" }];
  return version.messages.map((message) => {
    if (typeof message.include === "object" && message.include !== null) return { include: message.include as { name: string } };
    const content = message.content;
    const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("\n") : "";
    return { role: String(message.role ?? "user"), content: text };
  });
}

/** A version as text to compare: its messages, variables, model and parameters, one field a line where it can. */
export function versionText(version: PromptVersion): string {
  const { messages, variables, model, parameters } = version;
  return JSON.stringify({ model, parameters, variables, messages }, null, 2);
}
