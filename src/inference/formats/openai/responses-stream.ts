import type { GatewayError } from "../../../http/errors";
import { encodeSSE } from "../../../http/sse";
import type { ChatChunk, FinishReason, ThinkingBlock, ToolCall, Usage } from "../../canonical";
import { type ClientToolName, clientToolNames } from "./responses-tools";
import { type BridgedResponse, functionCallItem, outputItemId, messageItem, outputText, reasoningItem, responseHead, responsesUsageOf, statusOf } from "./responses-reply";

type Body = Record<string, unknown>;
type OpenItem = { kind: "reasoning"; id: string; index: number; text: string; blocks: ThinkingBlock[] } | { kind: "message"; id: string; index: number; text: string };
type OpenCall = { id: string; index: number; call: ToolCall };

/**
 * Writes canonical chunks as the Responses API's event sequence: `response.created` and
 * `response.in_progress`, then each output item (the reasoning's summary, a message's text, a
 * function call's arguments) added, filled with deltas and done in order, then `response.completed` (or `.incomplete`) with
 * the whole response and its usage. Parallel tool calls stay open together: chat chunks may
 * interleave their arguments by index.
 */
class ResponsesStreamWriter {
  private sequence = 0;
  private head: Body | undefined;
  private open: OpenItem | undefined;
  /** Function calls being streamed, by their chat tool-call index. */
  private readonly calls = new Map<number, OpenCall>();
  private readonly done: Body[] = [];
  private finish: FinishReason = null;
  private usage: Usage | undefined;
  /** The client's names of flattened namespace tools, when it sent a namespace. */
  private readonly names: ((name: string) => ClientToolName) | undefined;

  constructor(
    private readonly controller: TransformStreamDefaultController<Uint8Array>,
    private readonly clientBody: Body,
    private readonly bridged: BridgedResponse,
  ) {
    this.names = clientToolNames(clientBody);
  }

  private send(type: string, fields: Body) {
    this.controller.enqueue(encodeSSE({ type, sequence_number: this.sequence++, ...fields }, type));
  }

  private response(status: string, extra: Body = {}): Body {
    return { ...this.head, status, incomplete_details: null, error: null, output: [], usage: null, ...extra };
  }

  private start(chunk: ChatChunk) {
    this.head = responseHead(this.bridged, this.clientBody, chunk.created || Math.floor(Date.now() / 1000), chunk.model);
    this.send("response.created", { response: this.response("in_progress") });
    this.send("response.in_progress", { response: this.response("in_progress") });
  }

  private close() {
    this.closeItem();
    for (const { id, index, call } of this.calls.values()) {
      this.send("response.function_call_arguments.done", { item_id: id, output_index: index, arguments: call.function.arguments });
      this.done.push(functionCallItem(id, call, "completed", this.names));
      this.send("response.output_item.done", { output_index: index, item: this.done.at(-1) });
    }
    this.calls.clear();
  }

  private closeItem() {
    const item = this.open;
    if (!item) return;
    this.open = undefined;
    const position = { item_id: item.id, output_index: item.index };
    if (item.kind === "reasoning") {
      if (item.text) {
        this.send("response.reasoning_summary_text.done", { ...position, summary_index: 0, text: item.text });
        this.send("response.reasoning_summary_part.done", { ...position, summary_index: 0, part: { type: "summary_text", text: item.text } });
      }
      this.done.push(reasoningItem(item.id, item.text, item.blocks));
    } else {
      this.send("response.output_text.done", { ...position, content_index: 0, text: item.text, logprobs: [] });
      this.send("response.content_part.done", { ...position, content_index: 0, part: outputText(item.text) });
      this.done.push(messageItem(item.id, item.text, "completed"));
    }
    this.send("response.output_item.done", { output_index: item.index, item: this.done.at(-1) });
  }

  private openReasoning(): Extract<OpenItem, { kind: "reasoning" }> {
    if (this.open?.kind === "reasoning") return this.open;
    this.close();
    const index = this.done.length;
    const item = { kind: "reasoning" as const, id: outputItemId("rs", this.head!.id as string, index), index, text: "", blocks: [] };
    this.open = item;
    this.send("response.output_item.added", { output_index: index, item: reasoningItem(item.id, "", undefined) });
    return item;
  }

  private reasoning(delta: string) {
    const item = this.openReasoning();
    const position = { item_id: item.id, output_index: item.index, summary_index: 0 };
    if (!item.text) this.send("response.reasoning_summary_part.added", { ...position, part: { type: "summary_text", text: "" } });
    item.text += delta;
    this.send("response.reasoning_summary_text.delta", { ...position, delta });
  }

  private text(delta: string) {
    if (this.open?.kind !== "message") {
      this.close();
      const index = this.done.length;
      this.open = { kind: "message", id: outputItemId("msg", this.head!.id as string, index), index, text: "" };
      this.send("response.output_item.added", { output_index: index, item: messageItem(this.open.id, "", "in_progress") });
      this.send("response.content_part.added", { item_id: this.open.id, output_index: index, content_index: 0, part: outputText("") });
    }
    this.open.text += delta;
    this.send("response.output_text.delta", { item_id: this.open.id, output_index: this.open.index, content_index: 0, delta, logprobs: [] });
  }

  private toolCall(delta: NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>[number]) {
    let open = this.calls.get(delta.index);
    if (delta.id && !open) {
      this.closeItem();
      const index = this.done.length + this.calls.size;
      const call: ToolCall = { id: delta.id, type: "function", function: { name: delta.function?.name ?? "", arguments: "" } };
      open = { id: outputItemId("fc", this.head!.id as string, index), index, call };
      this.calls.set(delta.index, open);
      this.send("response.output_item.added", { output_index: index, item: functionCallItem(open.id, call, "in_progress", this.names) });
    }
    const args = delta.function?.arguments;
    if (args && open) {
      open.call.function.arguments += args;
      this.send("response.function_call_arguments.delta", { item_id: open.id, output_index: open.index, delta: args });
    }
  }

  write(chunk: ChatChunk) {
    if (!this.head) this.start(chunk);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return;
    if (choice.delta.reasoning_content) this.reasoning(choice.delta.reasoning_content);
    // A signed block closes the thinking streamed before it; its text was already sent as summary.
    if (choice.delta.thinking_blocks?.length) this.openReasoning().blocks.push(...choice.delta.thinking_blocks);
    if (choice.delta.content) this.text(choice.delta.content);
    for (const call of choice.delta.tool_calls ?? []) this.toolCall(call);
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  end() {
    if (!this.head) this.start({ id: crypto.randomUUID(), object: "chat.completion.chunk", created: 0, model: "", choices: [] });
    this.close();
    const { status, incomplete_details } = statusOf(this.finish);
    const response = this.response(status, { incomplete_details, output: this.done, usage: responsesUsageOf(this.usage) });
    this.send(status === "completed" ? "response.completed" : "response.incomplete", { response });
    this.bridged.completed?.(response);
  }
}

/** Canonical chunks, event by event, as the Responses API's SSE for the client who sent `clientBody`. */
export function encodeResponsesStream(clientBody: Body, bridged: BridgedResponse): ReadableWritablePair<Uint8Array, ChatChunk> {
  let writer: ResponsesStreamWriter;
  return new TransformStream<ChatChunk, Uint8Array>({
    start: (controller) => {
      writer = new ResponsesStreamWriter(controller, clientBody, bridged);
    },
    transform: (chunk) => writer.write(chunk),
    flush: () => writer.end(),
  });
}

/** The Responses API's `error` event, ending a stream that failed midway; it carries the gateway's `error` too, which the openai SDKs raise. */
export function encodeResponsesStreamError(failure: GatewayError): Uint8Array {
  const { error } = failure.toBody();
  return encodeSSE({ type: "error", code: error.code, message: error.message, param: error.param ?? null, error }, "error");
}
