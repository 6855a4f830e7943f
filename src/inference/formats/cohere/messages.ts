import { badRequest } from "../../../http/errors";
import type { ChatMessage, ContentPart } from "../../canonical";
import type { CohereContentPart, CohereDocument, CohereMessage } from "./request-schema";

const partText = (part: CohereContentPart) => part.text ?? (part.document ? JSON.stringify(part.document.data) : "");

function plainText(content: CohereMessage["content"]): string {
  if (content === undefined) return "";
  return typeof content === "string" ? content : content.filter((part) => part.type !== "thinking").map(partText).join("");
}

function userContent(content: CohereMessage["content"]): ChatMessage["content"] {
  if (content === undefined || typeof content === "string") return content ?? "";
  return content.map((part): ContentPart => (part.type === "image_url" && part.image_url ? { type: "image_url", image_url: part.image_url } : { type: "text", text: partText(part) }));
}

/** Cohere's assistant turn: text (or, before tool calls, the tool plan), thinking, tool calls. */
function assistantFromCohere(message: CohereMessage): ChatMessage {
  const thinking = Array.isArray(message.content) ? message.content.filter((part) => part.type === "thinking").map((part) => part.thinking ?? "") : [];
  const text = plainText(message.content) || message.tool_plan || "";
  return {
    role: "assistant",
    content: text || null,
    ...(message.tool_calls?.length ? { tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.function.name, arguments: call.function.arguments } })) } : {}),
    ...(thinking.length ? { reasoning_content: thinking.join("") } : {}),
  };
}

/** Grounding documents have no canonical field; they reach other providers as a system message the model can read. */
function documentsMessage(documents: CohereDocument[]): ChatMessage {
  const lines = documents.map((document, index) =>
    typeof document === "string" ? `[doc_${index}] ${document}` : `[${document.id ?? `doc_${index}`}] ${JSON.stringify(document.data)}`,
  );
  return { role: "system", content: `Documents you can use to answer:\n${lines.join("\n")}` };
}

export function messagesFromCohere(messages: CohereMessage[], documents: CohereDocument[] | undefined): ChatMessage[] {
  const canonical = messages.map((message): ChatMessage => {
    switch (message.role) {
      case "system":
        return { role: "system", content: plainText(message.content) };
      case "user":
        return { role: "user", content: userContent(message.content) };
      case "assistant":
        return assistantFromCohere(message);
      case "tool":
        return { role: "tool", tool_call_id: message.tool_call_id, content: plainText(message.content) };
    }
  });
  return documents?.length ? [documentsMessage(documents), ...canonical] : canonical;
}

function canonicalText(content: ChatMessage["content"]): string {
  if (!content) return "";
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function userPartsToCohere(content: ContentPart[], messageIndex: number) {
  return content.map((part, partIndex) => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (part.type === "image_url") return { type: "image_url", image_url: part.image_url };
    const param = `messages[${messageIndex}].content[${partIndex}]`;
    throw badRequest(`${param}: file parts cannot be sent to a Cohere model`, param, "caller_unsupported_content");
  });
}

function assistantToCohere(message: ChatMessage) {
  const text = canonicalText(message.content);
  const reasoning = message.reasoning_content ?? message.thinking_blocks?.map((block) => (block.type === "thinking" ? block.thinking : "")).join("");
  if (message.tool_calls?.length) {
    return { role: "assistant", tool_calls: message.tool_calls, ...(text ? { tool_plan: text } : {}) };
  }
  const content = [...(reasoning ? [{ type: "thinking", thinking: reasoning }] : []), { type: "text", text }];
  return { role: "assistant", content };
}

export function messagesToCohere(messages: ChatMessage[]): Record<string, unknown>[] {
  return messages.map((message, index) => {
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content: canonicalText(message.content) };
      case "user":
        return { role: "user", content: typeof message.content === "string" ? message.content : userPartsToCohere(message.content ?? [], index) };
      case "assistant":
        return assistantToCohere(message);
      case "tool":
        return { role: "tool", tool_call_id: message.tool_call_id, content: canonicalText(message.content) };
    }
  });
}
