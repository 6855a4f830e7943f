import type { ChatResponse, FinishReason, Usage } from "../../canonical";
import { assistantToBlocks, assistantToCanonical } from "./messages";
import type { ConverseResponse, StopReason, TokenUsage } from "./wire";

const FINISH_REASONS: Record<StopReason, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  malformed_tool_use: "tool_calls",
  malformed_model_output: "stop",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
  model_context_window_exceeded: "model_context_window_exceeded",
};

export const finishReasonOf = (stopReason: string | undefined): FinishReason => FINISH_REASONS[stopReason as StopReason] ?? "stop";

export function stopReasonOf(finishReason: FinishReason, stopSequence?: string | null): StopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
    case "refusal":
      return "content_filtered";
    case "model_context_window_exceeded":
      return "model_context_window_exceeded";
    default:
      return stopSequence ? "stop_sequence" : "end_turn";
  }
}

/** Bedrock counts cached prompt tokens apart from `inputTokens`; canonical `prompt_tokens` includes them, as OpenAI's does. */
export function usageFromBedrock(usage: TokenUsage): Usage {
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  const promptTokens = usage.inputTokens + cacheRead + cacheWrite;
  const canonical: Usage = { prompt_tokens: promptTokens, completion_tokens: usage.outputTokens, total_tokens: promptTokens + usage.outputTokens };
  if (usage.cacheReadInputTokens !== undefined || usage.cacheWriteInputTokens !== undefined) {
    canonical.prompt_tokens_details = { cached_tokens: cacheRead, cache_write_tokens: cacheWrite };
  }
  return canonical;
}

export function usageToBedrock(usage: Usage): TokenUsage {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  const bedrock: TokenUsage = {
    inputTokens: Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite),
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  };
  if (cacheRead > 0) bedrock.cacheReadInputTokens = cacheRead;
  if (cacheWrite > 0) bedrock.cacheWriteInputTokens = cacheWrite;
  return bedrock;
}

const stopSequenceOf = (fields: Record<string, unknown> | undefined) => (typeof fields?.stop_sequence === "string" ? fields.stop_sequence : undefined);

/** Bedrock answers carry no id or model; the gateway names the completion itself. */
export function converseResponseToCanonical(body: ConverseResponse): ChatResponse {
  const stopSequence = stopSequenceOf(body.additionalModelResponseFields);
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "",
    choices: [{ index: 0, message: assistantToCanonical(body.output.message.content), finish_reason: finishReasonOf(body.stopReason), ...(stopSequence ? { stop_sequence: stopSequence } : {}) }],
    ...(body.usage ? { usage: usageFromBedrock(body.usage) } : {}),
  };
}

export function canonicalToConverseResponse(response: ChatResponse): ConverseResponse {
  const choice = response.choices[0];
  const usage = response.usage ? usageToBedrock(response.usage) : { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const converse: ConverseResponse = {
    output: { message: { role: "assistant", content: choice ? assistantToBlocks(choice.message, "choices[0].message") : [] } },
    stopReason: stopReasonOf(choice?.finish_reason ?? null, choice?.stop_sequence),
    usage,
  };
  if (choice?.stop_sequence) converse.additionalModelResponseFields = { stop_sequence: choice.stop_sequence };
  return converse;
}
