/** A generateContent response and the canonical chat response, both ways: parts, finish reasons, usage. */
import type { ChatResponse, FinishReason, Usage } from "../../canonical";
import { assistantMessageOf, assistantParts } from "./contents";
import type { Candidate, GenaiFinishReason, GenerateContentResponse, UsageMetadata } from "./schemas";

const FILTERED: ReadonlySet<GenaiFinishReason> = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/** Gemini says STOP after a function call too; the canonical form says `tool_calls`. */
export function finishReasonOf(reason: GenaiFinishReason | undefined, calledTools: boolean): FinishReason {
  if (reason === undefined) return null;
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  return calledTools ? "tool_calls" : "stop";
}

export function genaiFinishReason(reason: FinishReason): GenaiFinishReason | undefined {
  switch (reason) {
    case null:
      return undefined;
    case "length":
    case "model_context_window_exceeded":
      return "MAX_TOKENS";
    case "content_filter":
    case "refusal":
      return "SAFETY";
    default:
      return "STOP";
  }
}

/** Gemini counts thoughts apart from the answer; the canonical completion includes them. */
export function usageOf(metadata: UsageMetadata): Usage {
  const prompt = metadata.promptTokenCount ?? 0;
  const thoughts = metadata.thoughtsTokenCount ?? 0;
  const completion = (metadata.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: metadata.totalTokenCount ?? prompt + completion,
    ...(metadata.cachedContentTokenCount ? { prompt_tokens_details: { cached_tokens: metadata.cachedContentTokenCount } } : {}),
    ...(thoughts ? { completion_tokens_details: { reasoning_tokens: thoughts } } : {}),
  };
}

export function usageMetadataOf(usage: Usage): UsageMetadata {
  const thoughts = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens - thoughts,
    ...(cached ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: usage.total_tokens,
  };
}

let generatedIds = 0;
/** A tool call id for Gemini calls that came without one. */
export const newCallId = () => `call_${Date.now().toString(36)}_${(generatedIds++).toString(36)}`;

const choiceOf = (candidate: Candidate, position: number): ChatResponse["choices"][number] => {
  const message = assistantMessageOf(candidate.content?.parts ?? [], (_name, id) => id ?? newCallId(), true);
  return { index: candidate.index ?? position, message, finish_reason: finishReasonOf(candidate.finishReason, Boolean(message.tool_calls)) ?? "stop" };
};

export function generateContentResponseToCanonical(body: unknown): ChatResponse {
  const response = body as GenerateContentResponse;
  const candidates = response.candidates ?? [];
  const blocked = candidates.length === 0 && response.promptFeedback?.blockReason;
  return {
    id: response.responseId ?? `genai-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: response.modelVersion ?? "",
    choices: blocked ? [{ index: 0, message: { role: "assistant", content: null }, finish_reason: "content_filter" }] : candidates.map(choiceOf),
    ...(response.usageMetadata ? { usage: usageOf(response.usageMetadata) } : {}),
  };
}

export function canonicalToGenerateContentResponse(response: ChatResponse): GenerateContentResponse {
  return {
    candidates: response.choices.map((choice) => ({
      content: { role: "model", parts: assistantParts(choice.message) },
      finishReason: genaiFinishReason(choice.finish_reason),
      index: choice.index,
    })),
    ...(response.usage ? { usageMetadata: usageMetadataOf(response.usage) } : {}),
    modelVersion: response.model,
    responseId: response.id,
  };
}
