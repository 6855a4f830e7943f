import { GatewayError } from "../../../http/errors";
import type { ChatChunk } from "../../canonical";
import { decodeEvents, type StreamEvent } from "./event-stream";
import { finishReasonOf, usageFromBedrock } from "./response";
import type { ConverseStreamEvents } from "./wire";

type Delta = ChatChunk["choices"][number]["delta"];

/** What is known of the content block a delta belongs to. */
interface BlockState {
  toolIndex?: number;
  thinking: string;
}

function deltaOf({ delta }: ConverseStreamEvents["contentBlockDelta"], block: BlockState): Delta | undefined {
  if (delta.text !== undefined) return { content: delta.text };
  if (delta.toolUse && block.toolIndex !== undefined) return { tool_calls: [{ index: block.toolIndex, function: { arguments: delta.toolUse.input } }] };
  const reasoning = delta.reasoningContent;
  if (reasoning?.text !== undefined) {
    block.thinking += reasoning.text;
    return { reasoning_content: reasoning.text };
  }
  // The signature closes the thinking block: it comes whole, with the text that streamed before it.
  if (reasoning?.signature !== undefined) return { thinking_blocks: [{ type: "thinking", thinking: block.thinking, signature: reasoning.signature }] };
  if (reasoning?.redactedContent !== undefined) return { thinking_blocks: [{ type: "redacted_thinking", data: reasoning.redactedContent }] };
  return undefined;
}

const upstreamStreamFailure = (event: StreamEvent) =>
  new GatewayError({ status: 502, errorType: "provider_stream_error", message: `Bedrock stream failed: ${event.name}: ${String(event.payload.message ?? "")}`, isGatewayError: false });

/** ConverseStream events as canonical chunks; tool calls are numbered in order of appearance, as OpenAI numbers them. */
function eventsToChunks(): TransformStream<StreamEvent, ChatChunk> {
  const base = { id: `chatcmpl-${crypto.randomUUID()}`, object: "chat.completion.chunk" as const, created: Math.floor(Date.now() / 1000), model: "" };
  const blocks = new Map<number, BlockState>();
  let toolCalls = 0;
  const blockAt = (index: number) => blocks.get(index) ?? blocks.set(index, { thinking: "" }).get(index)!;
  const chunk = (delta: Delta, extra: Partial<ChatChunk["choices"][number]> = {}): ChatChunk => ({ ...base, choices: [{ index: 0, delta, finish_reason: null, ...extra }] });
  return new TransformStream({
    transform(event, controller) {
      if (event.messageType !== "event") return controller.error(upstreamStreamFailure(event));
      const payload = event.payload;
      switch (event.name) {
        case "messageStart":
          return controller.enqueue(chunk({ role: "assistant", content: "" }));
        case "contentBlockStart": {
          const { contentBlockIndex, start } = payload as ConverseStreamEvents["contentBlockStart"];
          if (!start.toolUse) return;
          const index = toolCalls++;
          blockAt(contentBlockIndex).toolIndex = index;
          return controller.enqueue(chunk({ tool_calls: [{ index, id: start.toolUse.toolUseId, type: "function", function: { name: start.toolUse.name, arguments: "" } }] }));
        }
        case "contentBlockDelta": {
          const delta = payload as ConverseStreamEvents["contentBlockDelta"];
          const canonical = deltaOf(delta, blockAt(delta.contentBlockIndex));
          return canonical ? controller.enqueue(chunk(canonical)) : undefined;
        }
        case "messageStop": {
          const { stopReason, additionalModelResponseFields } = payload as ConverseStreamEvents["messageStop"];
          const stopSequence = additionalModelResponseFields?.stop_sequence;
          return controller.enqueue(chunk({}, { finish_reason: finishReasonOf(stopReason), ...(typeof stopSequence === "string" ? { stop_sequence: stopSequence } : {}) }));
        }
        case "metadata": {
          const { usage } = payload as ConverseStreamEvents["metadata"];
          return usage ? controller.enqueue({ ...base, choices: [], usage: usageFromBedrock(usage) }) : undefined;
        }
      }
    },
  });
}

export function decodeConverseStream(): ReadableWritablePair<ChatChunk, Uint8Array> {
  const events = decodeEvents();
  return { writable: events.writable, readable: events.readable.pipeThrough(eventsToChunks()) };
}
