import type { ChatChunk, Usage } from "../../canonical";
import { encodeEvent } from "./event-stream";
import { stopReasonOf, usageToBedrock } from "./response";
import type { ConverseStreamEvents } from "./wire";

type Choice = ChatChunk["choices"][number];
type BlockDelta = ConverseStreamEvents["contentBlockDelta"]["delta"];
type Emit = <E extends keyof ConverseStreamEvents>(name: E, payload: ConverseStreamEvents[E]) => void;

/**
 * Tracks Bedrock's content blocks while canonical deltas arrive: a change of kind (text,
 * reasoning, a tool call) closes the open block and opens the next index, as Bedrock numbers them.
 */
class BlockTracker {
  private next = 0;
  private open?: { index: number; kind: string };
  private readonly toolBlocks = new Map<number, number>();

  constructor(private readonly emit: Emit) {}

  isOpen(kind: string) {
    return this.open?.kind === kind;
  }

  close() {
    if (this.open) this.emit("contentBlockStop", { contentBlockIndex: this.open.index });
    this.open = undefined;
  }

  /** The index of an open block of this kind, opening one when needed. */
  private ensure(kind: string): number {
    if (this.open?.kind === kind) return this.open.index;
    this.close();
    this.open = { index: this.next++, kind };
    return this.open.index;
  }

  delta(kind: "text" | "reasoning", delta: BlockDelta) {
    this.emit("contentBlockDelta", { contentBlockIndex: this.ensure(kind), delta });
  }

  toolCall(call: NonNullable<Choice["delta"]["tool_calls"]>[number]) {
    if (call.id !== undefined && call.function?.name !== undefined) {
      const index = this.ensure(`tool:${call.index}`);
      this.toolBlocks.set(call.index, index);
      this.emit("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.function.name } } });
    }
    const block = this.toolBlocks.get(call.index);
    if (block !== undefined && call.function?.arguments) this.emit("contentBlockDelta", { contentBlockIndex: block, delta: { toolUse: { input: call.function.arguments } } });
  }
}

function encodeDelta(blocks: BlockTracker, delta: Choice["delta"]) {
  if (delta.reasoning_content) blocks.delta("reasoning", { reasoningContent: { text: delta.reasoning_content } });
  for (const block of delta.thinking_blocks ?? []) {
    if (block.type === "redacted_thinking") {
      blocks.close();
      blocks.delta("reasoning", { reasoningContent: { redactedContent: block.data } });
      blocks.close();
      continue;
    }
    // Text already streamed as reasoning_content is not repeated: only the signature is new.
    if (block.thinking && !blocks.isOpen("reasoning")) blocks.delta("reasoning", { reasoningContent: { text: block.thinking } });
    if (block.signature === undefined) continue;
    // A signature ends its thinking block; further reasoning opens the next one.
    blocks.delta("reasoning", { reasoningContent: { signature: block.signature } });
    blocks.close();
  }
  if (delta.content) blocks.delta("text", { text: delta.content });
  for (const call of delta.tool_calls ?? []) blocks.toolCall(call);
}

/** Canonical chunks as ConverseStream events: messageStart, content blocks, messageStop, then metadata with the usage. */
export function encodeConverseStream(): ReadableWritablePair<Uint8Array, ChatChunk> {
  const startedAt = performance.now();
  let started = false;
  let stopped = false;
  let usage: Usage | undefined;
  let metadataSent = false;
  let emit: Emit = () => {};
  const blocks = new BlockTracker((name, payload) => emit(name, payload));
  const sendMetadata = () => {
    if (!usage || metadataSent) return;
    metadataSent = true;
    emit("metadata", { usage: usageToBedrock(usage), metrics: { latencyMs: Math.round(performance.now() - startedAt) } });
  };
  const stop = (choice: Pick<Choice, "finish_reason" | "stop_sequence">) => {
    blocks.close();
    stopped = true;
    emit("messageStop", { stopReason: stopReasonOf(choice.finish_reason, choice.stop_sequence), ...(choice.stop_sequence ? { additionalModelResponseFields: { stop_sequence: choice.stop_sequence } } : {}) });
    sendMetadata();
  };
  return new TransformStream<ChatChunk, Uint8Array>({
    start(controller) {
      emit = (name, payload) => controller.enqueue(encodeEvent(name, payload));
    },
    transform(chunk) {
      if (!started) emit("messageStart", { role: "assistant" });
      started = true;
      const choice = chunk.choices.find((candidate) => candidate.index === 0);
      if (choice && !stopped) encodeDelta(blocks, choice.delta);
      usage = chunk.usage ?? usage;
      if (choice?.finish_reason && !stopped) stop(choice);
      else if (stopped) sendMetadata();
    },
    flush() {
      if (started && !stopped) stop({ finish_reason: null });
    },
  });
}
