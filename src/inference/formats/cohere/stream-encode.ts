import { encodeSSE } from "../../../http/sse";
import type { ChatChunk, FinishReason, Usage } from "../../canonical";
import { type CitedDelta, finishToCohere, isCohereCitation, usageToCohere } from "./mappings";
import type { CohereStreamEvent } from "./wire";

type BlockKind = "text" | "thinking";
type ToolCallDelta = NonNullable<CitedDelta["tool_calls"]>[number];

/** Where the Cohere event stream stands: which content block or tool call is open, and how the turn ended. */
interface EncoderState {
  started: boolean;
  block?: { kind: BlockKind; index: number };
  nextContentIndex: number;
  openToolCall?: number;
  nextCitationIndex: number;
  finish: FinishReason;
  stopSequence?: string | null;
  usage?: Usage | null;
}

function closeOpen(state: EncoderState, events: CohereStreamEvent[], what: { block?: boolean; toolCall?: boolean }) {
  if (what.block && state.block) {
    events.push({ type: "content-end", index: state.block.index });
    state.block = undefined;
  }
  if (what.toolCall && state.openToolCall !== undefined) {
    events.push({ type: "tool-call-end", index: state.openToolCall });
    state.openToolCall = undefined;
  }
}

function contentEvents(state: EncoderState, kind: BlockKind, text: string, events: CohereStreamEvent[]) {
  closeOpen(state, events, { toolCall: true });
  if (state.block?.kind !== kind) {
    closeOpen(state, events, { block: true });
    state.block = { kind, index: state.nextContentIndex++ };
    const opening = kind === "text" ? { type: "text" as const, text: "" } : { type: "thinking" as const, thinking: "" };
    events.push({ type: "content-start", index: state.block.index, delta: { message: { content: opening } } });
  }
  const piece = kind === "text" ? { text } : { thinking: text };
  events.push({ type: "content-delta", index: state.block.index, delta: { message: { content: piece } } });
}

function toolCallEvents(state: EncoderState, calls: ToolCallDelta[], events: CohereStreamEvent[]) {
  closeOpen(state, events, { block: true });
  for (const call of calls) {
    if (call.id) {
      closeOpen(state, events, { toolCall: true });
      state.openToolCall = call.index;
      const opened = { id: call.id, type: "function" as const, function: { name: call.function?.name ?? "", arguments: "" } };
      events.push({ type: "tool-call-start", index: call.index, delta: { message: { tool_calls: opened } } });
    }
    const args = call.function?.arguments;
    if (args) events.push({ type: "tool-call-delta", index: call.index, delta: { message: { tool_calls: { function: { arguments: args } } } } });
  }
}

function eventsFor(state: EncoderState, chunk: ChatChunk): CohereStreamEvent[] {
  const events: CohereStreamEvent[] = [];
  if (!state.started) {
    state.started = true;
    events.push({ type: "message-start", id: chunk.id, delta: { message: { role: "assistant" } } });
  }
  const choice = chunk.choices[0];
  const delta: CitedDelta = choice?.delta ?? {};
  if (delta.reasoning_content) contentEvents(state, "thinking", delta.reasoning_content, events);
  if (delta.content) contentEvents(state, "text", delta.content, events);
  if (delta.tool_calls?.length) toolCallEvents(state, delta.tool_calls, events);
  for (const citation of (delta.annotations ?? []).filter(isCohereCitation)) {
    const index = state.nextCitationIndex++;
    events.push({ type: "citation-start", index, delta: { message: { citations: citation } } }, { type: "citation-end", index });
  }
  if (choice?.finish_reason) {
    closeOpen(state, events, { block: true, toolCall: true });
    state.finish = choice.finish_reason;
    state.stopSequence = choice.stop_sequence;
  }
  if (chunk.usage) state.usage = chunk.usage;
  return events;
}

/**
 * Canonical chunks out as Cohere v2 events. `message-end` waits for the end of the stream,
 * since OpenAI-style upstreams send usage in a chunk after the one that finishes the turn.
 */
export function encodeCohereStream(): ReadableWritablePair<Uint8Array, ChatChunk> {
  const state: EncoderState = { started: false, nextContentIndex: 0, nextCitationIndex: 0, finish: null };
  const send = (controller: TransformStreamDefaultController<Uint8Array>, events: CohereStreamEvent[]) => {
    for (const event of events) controller.enqueue(encodeSSE(event, event.type));
  };
  return new TransformStream<ChatChunk, Uint8Array>({
    transform: (chunk, controller) => send(controller, eventsFor(state, chunk)),
    flush(controller) {
      const events: CohereStreamEvent[] = state.started ? [] : [{ type: "message-start", delta: { message: { role: "assistant" } } }];
      closeOpen(state, events, { block: true, toolCall: true });
      const usage = usageToCohere(state.usage);
      events.push({ type: "message-end", delta: { finish_reason: finishToCohere(state.finish, state.stopSequence), ...(usage ? { usage } : {}) } });
      send(controller, events);
      controller.enqueue(encodeSSE("[DONE]"));
    },
  });
}
