import { GatewayError } from "../../http/errors";
import { parseSSE } from "../../http/sse";
import type { ChatChunk, ChatMessage, FinishReason, ToolCall, ToolDefinition, Usage } from "../../inference/canonical";
import type { Inference } from "../../inference/handle";
import { callPipeline, deadline } from "../pipeline";
import type { ChosenModel } from "./model-choice";

export interface ModelTurnRequest {
  model: ChosenModel;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** `none` once the tool rounds are used up: the model must answer with what it has. */
  toolChoice: "auto" | "none";
  timeoutSeconds: number;
  signal: AbortSignal;
}

/** What the model said in one turn. */
export interface ModelTurn {
  content: string;
  toolCalls: ToolCall[];
  finishReason?: FinishReason;
  usage?: Usage;
}

const streamFailed = (message: string) => new GatewayError({ status: 502, errorType: "provider_stream_error", message });

/** Folds one streamed choice's deltas: text as it comes (passed on at once), tool calls by index. */
async function readTurn(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<ModelTurn> {
  const turn: ModelTurn = { content: "", toolCalls: [] };
  const calls = new Map<number, ToolCall>();
  for await (const message of stream.pipeThrough(parseSSE())) {
    if (message.data === "[DONE]") break;
    const chunk = JSON.parse(message.data) as ChatChunk & { error?: { message?: string } };
    if (chunk.error) throw streamFailed(chunk.error.message ?? "the model's stream reported an error");
    if (chunk.usage) turn.usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    if (choice.delta.content) {
      turn.content += choice.delta.content;
      onText(choice.delta.content);
    }
    for (const part of choice.delta.tool_calls ?? []) {
      const call = calls.get(part.index) ?? { id: "", type: "function" as const, function: { name: "", arguments: "" } };
      if (part.id) call.id = part.id;
      call.function.name += part.function?.name ?? "";
      call.function.arguments += part.function?.arguments ?? "";
      calls.set(part.index, call);
    }
    if (choice.finish_reason) turn.finishReason = choice.finish_reason;
  }
  turn.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  return turn;
}

/**
 * One streamed call to the chat model through the gateway's pipeline. The timeout bounds the
 * whole call, the stream included; text is handed to `onText` as it arrives.
 */
export async function streamModelTurn(inference: Inference, request: ModelTurnRequest, onText: (text: string) => void): Promise<ModelTurn> {
  const bound = deadline(request.signal, request.timeoutSeconds);
  try {
    const offered = request.tools.length > 0 ? { tools: request.tools, tool_choice: request.toolChoice } : {};
    const body = { model: request.model.ref, messages: request.messages, stream: true, stream_options: { include_usage: true }, ...offered };
    const response = await callPipeline(inference, { kind: "chat", body, keyId: request.model.keyId, stream: true, signal: bound.signal });
    if (!response.body) throw streamFailed("the model answered without a stream");
    return await readTurn(response.body, onText);
  } catch (error) {
    const explained = bound.explain(error);
    throw explained instanceof GatewayError ? explained : streamFailed(`the model's stream failed: ${(explained as Error).message}`);
  } finally {
    bound.clear();
  }
}
