import { type SseChunkDecoder, sseChunkStream } from "../sse-chunks";
import type { ChatChunk, FinishReason } from "../../canonical";
import { thinkingToCanonical } from "./response";
import { finishReasonOf } from "./stop-reason";
import { usageToCanonical } from "./usage";
import type { ContentBlock, MessagesUsage, StreamEvent } from "./wire";
import { upstreamStreamFailed } from "../../../upstream/errors";

type Delta = ChatChunk["choices"][number]["delta"];

interface OpenBlock {
  kind: ContentBlock["type"];
  /** The canonical tool-call index of a `tool_use` block. */
  toolIndex: number;
  /** Thinking text so far: the signature delta carries the whole block. */
  thinking: string;
}

/** What a stream has said so far, to fill each canonical chunk. */
class DecodeState {
  id = "";
  model = "";
  readonly created = Math.floor(Date.now() / 1000);
  usage: Partial<MessagesUsage> = {};
  readonly blocks = new Map<number, OpenBlock>();
  toolCalls = 0;

  chunk(delta: Delta, finishReason: FinishReason = null, stopSequence?: string | null): ChatChunk {
    const choice = { index: 0, delta, finish_reason: finishReason, ...(stopSequence === undefined ? {} : { stop_sequence: stopSequence }) };
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [choice] };
  }
}

function blockStarted(state: DecodeState, index: number, block: ContentBlock): ChatChunk[] {
  const open: OpenBlock = { kind: block.type, toolIndex: block.type === "tool_use" ? state.toolCalls++ : -1, thinking: "" };
  state.blocks.set(index, open);
  switch (block.type) {
    case "tool_use":
      return [state.chunk({ tool_calls: [{ index: open.toolIndex, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] })];
    case "redacted_thinking":
      return [state.chunk({ thinking_blocks: [thinkingToCanonical(block)] })];
    case "text":
      return block.text ? [state.chunk({ content: block.text })] : [];
    default:
      return [];
  }
}

function blockDelta(state: DecodeState, event: Extract<StreamEvent, { type: "content_block_delta" }>): ChatChunk[] {
  const block = state.blocks.get(event.index);
  const delta = event.delta;
  switch (delta.type) {
    case "text_delta":
      return [state.chunk({ content: delta.text })];
    case "input_json_delta":
      return block ? [state.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partial_json } }] })] : [];
    case "thinking_delta":
      if (block) block.thinking += delta.thinking;
      return [state.chunk({ reasoning_content: delta.thinking })];
    case "signature_delta":
      return [state.chunk({ thinking_blocks: [{ type: "thinking", thinking: block?.thinking ?? "", signature: delta.signature }] })];
    default:
      // Citations have no place in a canonical chunk.
      return [];
  }
}

/** The turn's end: finish reason first, then usage in its own chunk as OpenAI streams it. */
function messageDelta(state: DecodeState, event: Extract<StreamEvent, { type: "message_delta" }>): ChatChunk[] {
  const reported = Object.fromEntries(Object.entries(event.usage ?? {}).filter(([, value]) => value !== null && value !== undefined));
  state.usage = { ...state.usage, ...reported };
  const finish = state.chunk({}, finishReasonOf(event.delta.stop_reason), event.delta.stop_sequence ?? null);
  return [finish, { ...state.chunk({}), choices: [], usage: usageToCanonical(state.usage) }];
}

function chunksOf(state: DecodeState, event: StreamEvent): ChatChunk[] {
  switch (event.type) {
    case "message_start":
      state.id = event.message.id;
      state.model = event.message.model;
      state.usage = event.message.usage ?? {};
      return [state.chunk({ role: "assistant", content: "" })];
    case "content_block_start":
      return blockStarted(state, event.index, event.content_block);
    case "content_block_delta":
      return blockDelta(state, event);
    case "message_delta":
      return messageDelta(state, event);
    case "error":
      throw upstreamStreamFailed(`${event.error.type}: ${event.error.message}`);
    default:
      return [];
  }
}

/** Anthropic's SSE (`message_start` .. `message_stop`), event by event, as canonical chunks. */
export function messagesSseDecoder(): SseChunkDecoder {
  const state = new DecodeState();
  return { event: (message) => chunksOf(state, JSON.parse(message.data) as StreamEvent), end: () => [] };
}

export const decodeMessagesStream = () => sseChunkStream(messagesSseDecoder());
