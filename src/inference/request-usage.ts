import type { Usage } from "./canonical";

/**
 * The usage of a text-to-speech request, which replies with audio and no count: the input's
 * tokens (OpenAI's o200k tokenizer), priced as prompt tokens.
 */
export async function speechUsage(input: string): Promise<Usage> {
  // Loaded on first use: the tokenizer's tables are large and most deployments never need them.
  const { countTokens } = await import("gpt-tokenizer");
  const tokens = countTokens(input);
  return { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens };
}
