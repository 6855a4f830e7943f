import type { Usage } from "../../canonical";

type Counts = Record<string, unknown>;

const count = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const detail = (details: unknown, name: string) => count((details as Counts | null | undefined)?.[name]);

/**
 * OpenAI's usage in either naming: chat and completions (`prompt_tokens`, `completion_tokens`)
 * or the Responses and Realtime APIs' (`input_tokens`, `output_tokens`), with cached, reasoning
 * and audio tokens.
 */
export function canonicalUsage(usage: Counts): Usage {
  const prompt = count(usage.prompt_tokens) ?? count(usage.input_tokens) ?? 0;
  const completion = count(usage.completion_tokens) ?? count(usage.output_tokens) ?? 0;
  // The Realtime API spells its details `input_token_details`, `output_token_details`.
  const promptDetails = usage.prompt_tokens_details ?? usage.input_tokens_details ?? usage.input_token_details;
  const completionDetails = usage.completion_tokens_details ?? usage.output_tokens_details ?? usage.output_token_details;
  const cached = detail(promptDetails, "cached_tokens");
  const audioIn = detail(promptDetails, "audio_tokens");
  const cachedAudio = detail((promptDetails as Counts | undefined)?.cached_tokens_details, "audio_tokens");
  const reasoning = detail(completionDetails, "reasoning_tokens");
  const audioOut = detail(completionDetails, "audio_tokens");
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(usage.total_tokens) ?? prompt + completion,
    ...(cached || audioIn ? { prompt_tokens_details: { ...(cached ? { cached_tokens: cached } : {}), ...(audioIn ? { audio_tokens: audioIn } : {}), ...(cachedAudio ? { cached_audio_tokens: cachedAudio } : {}) } } : {}),
    ...(reasoning || audioOut ? { completion_tokens_details: { ...(reasoning ? { reasoning_tokens: reasoning } : {}), ...(audioOut ? { audio_tokens: audioOut } : {}) } } : {}),
  };
}
