import type { Usage } from "../../canonical";

type Counts = Record<string, unknown>;

const count = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const detail = (details: unknown, name: string) => count((details as Counts | null | undefined)?.[name]);

/**
 * OpenAI's usage in either naming: chat and completions (`prompt_tokens`, `completion_tokens`)
 * or the Responses API's (`input_tokens`, `output_tokens`), with cached and reasoning tokens.
 */
export function canonicalUsage(usage: Counts): Usage {
  const prompt = count(usage.prompt_tokens) ?? count(usage.input_tokens) ?? 0;
  const completion = count(usage.completion_tokens) ?? count(usage.output_tokens) ?? 0;
  const promptDetails = usage.prompt_tokens_details ?? usage.input_tokens_details;
  const completionDetails = usage.completion_tokens_details ?? usage.output_tokens_details;
  const cached = detail(promptDetails, "cached_tokens");
  const reasoning = detail(completionDetails, "reasoning_tokens");
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(usage.total_tokens) ?? prompt + completion,
    ...(cached ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    ...(reasoning ? { completion_tokens_details: { reasoning_tokens: reasoning } } : {}),
  };
}
