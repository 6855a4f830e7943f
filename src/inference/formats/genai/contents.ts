/** Gemini `contents` and `systemInstruction` and the canonical messages, both ways. */
import { badRequest } from "../../../http/errors";
import type { ChatMessage, ContentPart, ThinkingBlock, ToolCall } from "../../canonical";
import { canonicalPartToPart, mediaPartToCanonical } from "./parts";
import type { Content, Part } from "./schemas";

/**
 * Gemini matches a functionResponse to its call by name (ids are optional); canonical messages
 * need ids, so calls without one get an id here and responses take them in order.
 */
class CallIds {
  private readonly pending = new Map<string, string[]>();
  private issued = 0;

  issue(name: string, id: string | undefined): string {
    const assigned = id ?? `call_${name}_${this.issued++}`;
    this.pending.set(name, [...(this.pending.get(name) ?? []), assigned]);
    return assigned;
  }

  answer(name: string, id: string | undefined): string {
    const queue = this.pending.get(name) ?? [];
    const index = id ? queue.indexOf(id) : 0;
    if (index >= 0 && queue.length > 0) return queue.splice(index, 1)[0]!;
    return id ?? `call_${name}_${this.issued++}`;
  }
}

const textOf = (parts: Part[]) =>
  parts
    .filter((part) => part.text !== undefined && !part.thought)
    .map((part) => part.text)
    .join("");

/** Text alone stays a string, as most clients write it; media makes it a list of parts. */
function canonicalContent(parts: Part[]): string | ContentPart[] {
  const answer = parts.filter((part) => !part.thought && !part.functionCall && !part.functionResponse);
  if (answer.every((part) => part.text !== undefined)) return textOf(answer);
  return answer.flatMap((part): ContentPart[] => {
    if (part.text !== undefined) return [{ type: "text", text: part.text }];
    const media = mediaPartToCanonical(part);
    return media ? [media] : [];
  });
}

/** Thought parts as reasoning text, and as thinking blocks when they carry signatures to keep. */
function reasoningOf(parts: Part[]): Pick<ChatMessage, "reasoning_content" | "thinking_blocks"> {
  const thoughts = parts.filter((part) => part.thought);
  if (thoughts.length === 0) return {};
  const reasoning = { reasoning_content: thoughts.map((part) => part.text ?? "").join("") };
  if (!thoughts.some((part) => part.thoughtSignature)) return reasoning;
  const blocks: ThinkingBlock[] = thoughts.map((part) => ({ type: "thinking", thinking: part.text ?? "", signature: part.thoughtSignature }));
  return { ...reasoning, thinking_blocks: blocks };
}

/** A function call's thought signature, where a client of OpenAI's format keeps it (see ToolCallExtra). */
export const signatureExtra = (part: Part) => (part.thoughtSignature ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {});

/**
 * A model turn as an assistant message; `callId` names the calls Gemini left without an id.
 * `withSignatures` keeps each call's thought signature, for a reply the client sends back.
 */
export function assistantMessageOf(parts: Part[], callId: (name: string, id: string | undefined) => string, withSignatures = false): ChatMessage & { role: "assistant" } {
  const toolCalls: ToolCall[] = parts.flatMap((part) =>
    part.functionCall
      ? [
          {
            id: callId(part.functionCall.name, part.functionCall.id),
            type: "function" as const,
            function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
            ...(withSignatures ? signatureExtra(part) : {}),
          },
        ]
      : [],
  );
  const content = canonicalContent(parts);
  return {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content,
    ...reasoningOf(parts),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

/** A user turn may answer tool calls (one tool message each) and say more besides. */
function userTurn(parts: Part[], ids: CallIds): ChatMessage[] {
  const messages: ChatMessage[] = parts.flatMap((part) =>
    part.functionResponse
      ? [{ role: "tool" as const, tool_call_id: ids.answer(part.functionResponse.name, part.functionResponse.id), name: part.functionResponse.name, content: JSON.stringify(part.functionResponse.response) }]
      : [],
  );
  const rest = parts.filter((part) => !part.functionResponse);
  if (rest.length > 0 || messages.length === 0) messages.push({ role: "user", content: canonicalContent(rest) });
  return messages;
}

export function contentsToMessages(contents: Content[], systemInstruction?: Content): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = systemInstruction ? textOf(systemInstruction.parts) : "";
  if (system) messages.push({ role: "system", content: system });
  const ids = new CallIds();
  for (const content of contents) {
    if (content.role === "model") messages.push(assistantMessageOf(content.parts, (name, id) => ids.issue(name, id)));
    else messages.push(...userTurn(content.parts, ids));
  }
  return messages;
}

const partsOf = (content: ChatMessage["content"]): Part[] => {
  if (content === null || content === "") return [];
  return typeof content === "string" ? [{ text: content }] : content.map(canonicalPartToPart);
};

/** Thinking blocks keep their signatures; plain reasoning text becomes one thought part. */
function thoughtParts(message: Pick<ChatMessage, "reasoning_content" | "thinking_blocks">): Part[] {
  const blocks = message.thinking_blocks?.filter((block) => block.type === "thinking") ?? [];
  if (blocks.length > 0) return blocks.map((block) => ({ text: block.thinking, thought: true, ...(block.signature ? { thoughtSignature: block.signature } : {}) }));
  return message.reasoning_content ? [{ text: message.reasoning_content, thought: true }] : [];
}

function parseArguments(call: ToolCall): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = call.function.arguments ? JSON.parse(call.function.arguments) : {};
  } catch {
    throw badRequest(`arguments of tool call '${call.id}' are not JSON, so they cannot be sent as a Gemini functionCall`, "messages");
  }
  return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
}

/** Gemini wants an object back from a function; anything else is wrapped as `{result}`. */
function functionResult(content: ChatMessage["content"]): Record<string, unknown> {
  const text = typeof content === "string" ? content : (content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { result: parsed };
  } catch {
    return { result: text };
  }
}

/** Gemini's documented stand-in for a call whose signature is lost (a client rebuilt the turn, or another model made the call). */
const UNSIGNED_CALL = "skip_thought_signature_validator";

/** Gemini 3 and later refuse a turn's function calls unless the first of them carries a thought signature. */
export const signsFunctionCalls = (model: string) => Number(/gemini-(\d+)/.exec(model)?.[1] ?? 0) >= 3;

/** An assistant turn as Gemini parts; with `signUnsigned`, a turn of calls none of which kept its signature gets the stand-in on its first. */
export function assistantParts(message: ChatMessage, signUnsigned = false): Part[] {
  const calls = message.tool_calls ?? [];
  const signed = calls.some((call) => call.extra_content?.google?.thought_signature);
  return [
    ...thoughtParts(message),
    ...partsOf(message.content),
    ...calls.map((call, index) => {
      const signature = call.extra_content?.google?.thought_signature ?? (signUnsigned && !signed && index === 0 ? UNSIGNED_CALL : undefined);
      return { functionCall: { id: call.id, name: call.function.name, args: parseArguments(call) }, ...(signature ? { thoughtSignature: signature } : {}) };
    }),
  ];
}

export function messagesToContents(messages: ChatMessage[], signUnsigned = false): { contents: Content[]; systemInstruction?: Content } {
  const system: Part[] = [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      system.push(...partsOf(message.content));
    } else if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
      const parts = assistantParts(message, signUnsigned);
      if (parts.length > 0) contents.push({ role: "model", parts });
    } else if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      const part: Part = { functionResponse: { id, name: callNames.get(id) ?? message.name ?? "tool", response: functionResult(message.content) } };
      // Gemini wants the answers to one turn's calls together, in one user turn.
      const previous = contents.at(-1);
      if (previous?.role === "user" && previous.parts.every((existing) => existing.functionResponse)) previous.parts.push(part);
      else contents.push({ role: "user", parts: [part] });
    } else {
      contents.push({ role: "user", parts: partsOf(message.content) });
    }
  }
  return { contents, ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}) };
}
