import { type EventSourceMessage, parseSSE } from "../../http/sse";
import type { ChatChunk, ThinkingBlock, ToolCallExtra, Usage } from "../../inference/canonical";
import type { ToolCall } from "../tools/executor";

type Choice = ChatChunk["choices"][number];
type AssembledCall = ToolCall & { type: "function"; extra_content?: ToolCallExtra };

/** One streamed round: the assistant message it assembled, how it ended, and what was held back from the client. */
export interface StreamedRound {
  /** The id, time and model of the round's chunks, for a chunk the gateway adds. */
  head?: Pick<ChatChunk, "id" | "object" | "created" | "model">;
  message: { role: "assistant"; content: string | null; tool_calls?: AssembledCall[]; thinking_blocks?: ThinkingBlock[] };
  finishReason: string | null;
  /** The round's tool-call deltas and its finish, for the client if the gateway does not run the calls. */
  held: ChatChunk[];
  usage?: Usage;
}

const withChoice = (chunk: ChatChunk, choice: Choice): ChatChunk => ({ ...chunk, choices: [choice] });

/** A stream's SSE events until it ends or `signal` aborts, which cancels the read. */
export async function* sseEvents(stream: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  const reader = stream.pipeThrough(parseSSE()).getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) return;
      yield value;
    }
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/**
 * Relays one round of an OpenAI chat stream to `send` as it arrives: text goes out at once, while
 * tool-call deltas, the finish and the usage are held until the round has ended, since tool calls
 * the gateway runs itself are not the client's to see. `[DONE]` is left to the caller.
 */
export async function relayRound(stream: ReadableStream<Uint8Array>, send: (chunk: ChatChunk) => void, signal: AbortSignal): Promise<StreamedRound> {
  const round: StreamedRound = { message: { role: "assistant", content: null }, finishReason: null, held: [] };
  const calls: AssembledCall[] = [];
  for await (const value of sseEvents(stream, signal)) {
    if (value.data === "[DONE]") continue;
    const chunk = JSON.parse(value.data) as ChatChunk;
    round.head ??= { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model };
    if (chunk.usage) round.usage = chunk.usage;
    const choice = chunk.choices?.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    const { tool_calls: toolCalls, ...rest } = choice.delta;
    // Signed thinking goes back with the turn, so the next round may think too.
    if (rest.thinking_blocks) round.message.thinking_blocks = [...(round.message.thinking_blocks ?? []), ...rest.thinking_blocks];
    if (rest.content !== undefined || rest.role || rest.reasoning_content || rest.thinking_blocks) {
      round.message.content = (round.message.content ?? "") + (rest.content ?? "");
      send(withChoice({ ...chunk, usage: undefined }, { ...choice, delta: rest, finish_reason: null }));
    }
    for (const delta of toolCalls ?? []) {
      const call = (calls[delta.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.function.name = delta.function.name;
      if (delta.extra_content) call.extra_content = delta.extra_content;
      call.function.arguments += delta.function?.arguments ?? "";
    }
    if (toolCalls || choice.finish_reason) {
      round.held.push(withChoice({ ...chunk, usage: undefined }, { ...choice, delta: toolCalls ? { tool_calls: toolCalls } : {} }));
      round.finishReason = choice.finish_reason ?? round.finishReason;
    }
  }
  if (calls.length > 0) round.message.tool_calls = calls.filter(Boolean);
  return round;
}

/** Usage of every round, added up: what the client's request cost across the rounds the gateway ran. */
export function totalUsage(rounds: readonly StreamedRound[]): Usage | undefined {
  const reported = rounds.flatMap((round) => (round.usage ? [round.usage] : []));
  if (reported.length === 0) return undefined;
  const sum = (pick: (usage: Usage) => number) => reported.reduce((total, usage) => total + pick(usage), 0);
  return { prompt_tokens: sum((usage) => usage.prompt_tokens), completion_tokens: sum((usage) => usage.completion_tokens), total_tokens: sum((usage) => usage.total_tokens) };
}
