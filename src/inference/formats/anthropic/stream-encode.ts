import { encodeSSE } from "../../../http/sse";
import type { ChatChunk, FinishReason, ThinkingBlock, Usage } from "../../canonical";
import { estimateInputTokensNow } from "../../token-count";
import { messagesRequestToCanonical } from "./request-decode";
import { messageIdOf } from "./response";
import { stopReasonOf } from "./stop-reason";
import { usageFromCanonical } from "./usage";
import type { BlockDelta, ContentBlock, MessagesRequest, StreamEvent } from "./wire";
import type { GatewayError } from "../../../http/errors";

type ToolCallDelta = NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>[number];

/**
 * Writes canonical chunks as Anthropic's event sequence: `message_start` and a `ping`, then each
 * content block opened, filled with deltas and closed in order, then `message_delta` with the
 * stop reason and usage (held until the end, since OpenAI sends usage after the finish reason)
 * and `message_stop`.
 */
class MessagesStreamWriter {
  private started = false;
  private open: { index: number; kind: "text" | "thinking" | "tool_use"; toolIndex?: number } | undefined;
  private nextIndex = 0;
  private finish: FinishReason = null;
  private stopSequence: string | null = null;
  private usage: Usage | undefined;

  constructor(private readonly controller: TransformStreamDefaultController<Uint8Array>) {}

  private send(event: StreamEvent) {
    this.controller.enqueue(encodeSSE(event, event.type));
  }

  /** True until `message_start` is sent. */
  get starting() {
    return !this.started;
  }

  /** `estimatedInput`: the request's input tokens as the gateway estimated them, for an upstream whose first chunk does not count them. */
  private start(chunk: Pick<ChatChunk, "id" | "model" | "usage">, estimatedInput?: number) {
    this.started = true;
    const usage = { ...usageFromCanonical(chunk.usage ?? (estimatedInput ? { prompt_tokens: estimatedInput, completion_tokens: 0, total_tokens: estimatedInput } : undefined)), output_tokens: 0 };
    this.send({
      type: "message_start",
      message: { id: messageIdOf(chunk.id), type: "message", role: "assistant", content: [], model: chunk.model, stop_reason: null, stop_sequence: null, usage },
    });
    this.send({ type: "ping" });
  }

  private close() {
    if (this.open) this.send({ type: "content_block_stop", index: this.open.index });
    this.open = undefined;
  }

  private openBlock(block: ContentBlock, toolIndex?: number) {
    const kind = block.type as "text" | "thinking" | "tool_use";
    if (this.open?.kind === kind && this.open.toolIndex === toolIndex) return;
    this.close();
    this.open = { index: this.nextIndex++, kind, toolIndex };
    this.send({ type: "content_block_start", index: this.open.index, content_block: block });
  }

  private delta(delta: BlockDelta) {
    this.send({ type: "content_block_delta", index: this.open!.index, delta });
  }

  private thinking(block: ThinkingBlock) {
    if (block.type === "redacted_thinking") {
      this.close();
      this.send({ type: "content_block_start", index: this.nextIndex++, content_block: block });
      this.send({ type: "content_block_stop", index: this.nextIndex - 1 });
      return;
    }
    // Text already streamed as `reasoning_content` is not repeated: only the signature is new.
    if (this.open?.kind !== "thinking") {
      this.openBlock({ type: "thinking", thinking: "", signature: "" });
      if (block.thinking) this.delta({ type: "thinking_delta", thinking: block.thinking });
    }
    if (block.signature) this.delta({ type: "signature_delta", signature: block.signature });
  }

  private toolCall(call: ToolCallDelta) {
    if (call.id) this.openBlock({ type: "tool_use", id: call.id, name: call.function?.name ?? "", input: {} }, call.index);
    const args = call.function?.arguments;
    if (args && this.open?.kind === "tool_use" && this.open.toolIndex === call.index) this.delta({ type: "input_json_delta", partial_json: args });
  }

  write(chunk: ChatChunk, estimatedInput?: number) {
    if (!this.started) this.start(chunk, estimatedInput);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return;
    const { delta } = choice;
    if (delta.reasoning_content) {
      this.openBlock({ type: "thinking", thinking: "", signature: "" });
      this.delta({ type: "thinking_delta", thinking: delta.reasoning_content });
    }
    for (const block of delta.thinking_blocks ?? []) this.thinking(block);
    if (delta.content) {
      this.openBlock({ type: "text", text: "" });
      this.delta({ type: "text_delta", text: delta.content });
    }
    for (const call of delta.tool_calls ?? []) this.toolCall(call);
    if (choice.finish_reason) {
      this.close();
      this.finish = choice.finish_reason;
      this.stopSequence = choice.stop_sequence ?? null;
    }
  }

  end() {
    if (!this.started) this.start({ id: crypto.randomUUID(), model: "", usage: this.usage });
    this.close();
    this.send({ type: "message_delta", delta: { stop_reason: stopReasonOf(this.finish, this.stopSequence), stop_sequence: this.stopSequence }, usage: usageFromCanonical(this.usage) });
    this.send({ type: "message_stop" });
  }
}

/** The input tokens of the Messages request `clientBody`, estimated as count_tokens estimates them; undefined when it cannot be read. */
function estimatedInputOf(clientBody: Record<string, unknown>): number | undefined {
  try {
    return estimateInputTokensNow(messagesRequestToCanonical({ ...(clientBody as unknown as MessagesRequest), max_tokens: 1 }));
  } catch {
    return undefined;
  }
}

/**
 * Canonical chunks, event by event, as Anthropic's SSE for the client who sent `clientBody`.
 * Anthropic's `message_start` counts the input; an upstream that counts it only at the end
 * (OpenAI's usage chunk) gets it estimated there, and counted exactly in `message_delta`.
 */
export function encodeMessagesStream(clientBody: Record<string, unknown>): ReadableWritablePair<Uint8Array, ChatChunk> {
  let writer: MessagesStreamWriter;
  return new TransformStream<ChatChunk, Uint8Array>({
    start: (controller) => {
      writer = new MessagesStreamWriter(controller);
    },
    transform: (chunk) => writer.write(chunk, writer.starting && !chunk.usage ? estimatedInputOf(clientBody) : undefined),
    flush: () => writer.end(),
  });
}

/** Anthropic's error types by HTTP status; others are `api_error`. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** The `error` event Anthropic ends a failing stream with (the SDK raises it as an APIError). */
export const encodeMessagesStreamError = (error: GatewayError) =>
  encodeSSE({ type: "error", error: { type: ERROR_TYPES[error.status] ?? "api_error", message: error.message } }, "error");
