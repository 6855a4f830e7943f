import type { ChatChunk, FinishReason, Usage } from "../../canonical";
import type { CohereCitation, CohereFinishReason, CohereUsage } from "./wire";

/** ERROR and TIMEOUT mean the turn did not finish; canonical has no reason for that but "none". */
const FINISH_FROM_COHERE: Record<CohereFinishReason, FinishReason> = {
  COMPLETE: "stop",
  STOP_SEQUENCE: "stop",
  MAX_TOKENS: "length",
  TOOL_CALL: "tool_calls",
  ERROR: null,
  TIMEOUT: null,
};

export const finishFromCohere = (reason: string | undefined): FinishReason => FINISH_FROM_COHERE[reason as CohereFinishReason] ?? null;

export function finishToCohere(reason: FinishReason, stopSequence?: string | null): CohereFinishReason {
  switch (reason) {
    case "stop":
      return stopSequence ? "STOP_SEQUENCE" : "COMPLETE";
    case "length":
    case "model_context_window_exceeded":
      return "MAX_TOKENS";
    case "tool_calls":
      return "TOOL_CALL";
    case "pause_turn":
    case "refusal":
      return "COMPLETE";
    default:
      return "ERROR";
  }
}

/** Billed units are what Cohere charges for (they leave out its own prompt template), so they win over raw tokens. */
export function usageFromCohere(usage: CohereUsage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const prompt = usage.billed_units?.input_tokens ?? usage.tokens?.input_tokens ?? 0;
  const completion = usage.billed_units?.output_tokens ?? usage.tokens?.output_tokens ?? 0;
  const canonical: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (usage.cached_tokens) canonical.prompt_tokens_details = { cached_tokens: usage.cached_tokens };
  return canonical;
}

export function usageToCohere(usage: Usage | null | undefined): CohereUsage | undefined {
  if (!usage) return undefined;
  const counts = { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return { billed_units: counts, tokens: { ...counts }, ...(cached ? { cached_tokens: cached } : {}) };
}

/**
 * Canonical chunk deltas have no field for citations, so a Cohere citation rides along as an
 * `annotations` entry, the same place a full response keeps them.
 */
export type CitedDelta = ChatChunk["choices"][number]["delta"] & { annotations?: CohereCitation[] };

export function isCohereCitation(value: unknown): value is CohereCitation {
  const candidate = value as Partial<CohereCitation> | null;
  return typeof candidate?.start === "number" && typeof candidate.end === "number" && Array.isArray(candidate.sources);
}
