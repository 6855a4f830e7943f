import type { WireFormat } from "../upstream/operations";

/** Where one streamed event carries a piece of reply text: its channel (a choice, a content block) and its path in the event. */
export interface DeltaSlot {
  channel: string;
  path: ReadonlyArray<string | number>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A choice's tool calls' argument deltas, each call a channel of its own: a model can leak a secret through them. */
function toolCallSlots(delta: Json, channel: string, choicePath: ReadonlyArray<string | number>): DeltaSlot[] {
  if (!Array.isArray(delta.tool_calls)) return [];
  return delta.tool_calls.flatMap((call: unknown, callIndex): DeltaSlot[] =>
    isObject(call) && isObject(call.function) && typeof call.function.arguments === "string"
      ? [{ channel: `${channel}:tool:${call.index ?? callIndex}`, path: [...choicePath, "delta", "tool_calls", callIndex, "function", "arguments"] }]
      : [],
  );
}

function openaiSlots(event: Json): DeltaSlot[] {
  if (event.type === "response.output_text.delta" && typeof event.delta === "string") return [{ channel: `output:${event.output_index}:${event.content_index}`, path: ["delta"] }];
  if (event.type === "response.function_call_arguments.delta" && typeof event.delta === "string") return [{ channel: `arguments:${event.output_index}`, path: ["delta"] }];
  if (!Array.isArray(event.choices)) return [];
  return event.choices.flatMap((choice: unknown, index): DeltaSlot[] => {
    if (!isObject(choice)) return [];
    const channel = `choice:${choice.index ?? index}`;
    const delta = isObject(choice.delta) ? choice.delta : undefined;
    const tools = delta ? toolCallSlots(delta, channel, ["choices", index]) : [];
    if (typeof delta?.content === "string") return [{ channel, path: ["choices", index, "delta", "content"] }, ...tools];
    if (typeof choice.text === "string") return [{ channel, path: ["choices", index, "text"] }];
    return tools;
  });
}

function anthropicSlots(event: Json): DeltaSlot[] {
  const delta = event.delta;
  if (event.type !== "content_block_delta" || !isObject(delta)) return [];
  if (delta.type === "text_delta" && typeof delta.text === "string") return [{ channel: `block:${event.index}`, path: ["delta", "text"] }];
  // A tool_use block's input, streamed as pieces of its JSON.
  if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") return [{ channel: `block:${event.index}`, path: ["delta", "partial_json"] }];
  return [];
}

function genaiSlots(event: Json): DeltaSlot[] {
  if (!Array.isArray(event.candidates)) return [];
  return event.candidates.flatMap((candidate: unknown, index): DeltaSlot[] => {
    const parts = isObject(candidate) && isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    return parts.flatMap((part: unknown, partIndex): DeltaSlot[] =>
      isObject(part) && typeof part.text === "string" && part.thought !== true ? [{ channel: `candidate:${index}`, path: ["candidates", index, "content", "parts", partIndex, "text"] }] : [],
    );
  });
}

function cohereSlots(event: Json): DeltaSlot[] {
  if (event.type !== "content-delta") return [];
  const text = (event.delta as { message?: { content?: { text?: unknown } } } | undefined)?.message?.content?.text;
  return typeof text === "string" ? [{ channel: `content:${event.index ?? 0}`, path: ["delta", "message", "content", "text"] }] : [];
}

const SLOTS: Partial<Record<WireFormat, (event: Json) => DeltaSlot[]>> = { openai: openaiSlots, anthropic: anthropicSlots, genai: genaiSlots, cohere: cohereSlots };

/** Whether guardrails can read this format's streams (its events are SSE with JSON data). */
export const readsStreamsOf = (format: WireFormat) => SLOTS[format] !== undefined;

export function deltaSlotsOf(format: WireFormat, event: unknown): DeltaSlot[] {
  return isObject(event) ? (SLOTS[format]?.(event) ?? []) : [];
}

/** An event that carries the last of its text beside its end (a Gemini chunk with its finishReason): nothing is held back past it. */
export function endsText(event: unknown): boolean {
  if (!isObject(event)) return false;
  const finished = (items: unknown, key: string) => Array.isArray(items) && items.some((item) => isObject(item) && item[key] !== undefined && item[key] !== null);
  return finished(event.choices, "finish_reason") || finished(event.candidates, "finishReason");
}

/** The event that tells the client its reply is over: verdict checks on the whole reply run before it goes out. */
export function isClosingEvent(data: string, event: unknown): boolean {
  if (data.trim() === "[DONE]") return true;
  if (!isObject(event)) return false;
  return event.type === "message_stop" || event.type === "response.completed" || event.type === "message-end";
}

export function textAt(event: unknown, path: DeltaSlot["path"]): string {
  let value: unknown = event;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value as string;
}

export function setTextAt(event: unknown, path: DeltaSlot["path"], text: string): void {
  let value: unknown = event;
  for (const step of path.slice(0, -1)) value = (value as Record<string | number, unknown>)[step];
  (value as Record<string | number, unknown>)[path.at(-1)!] = text;
}
