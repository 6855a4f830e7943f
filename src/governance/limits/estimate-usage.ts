import type { Usage } from "../../inference/canonical";
import { textAndMedia } from "../../inference/inline-media";

/** Fields whose strings are names, not text the model reads. */
export const NOT_TEXT = new Set(["model", "role", "type"]);

/**
 * Usage for a reply the provider reported none for (a stream the client left early, a stream
 * without a usage chunk): the request's text and the reply seen, counted with OpenAI's o200k
 * tokenizer. Without it, leaving a stream just before its end would cost nothing. Inline media
 * (an image's base64) is not counted: tokenized as text, 1 MB of base64 came to ~680,000 tokens
 * and ~76 ms of the event loop, where providers bill an image a few hundred to a few thousand.
 */
export async function estimateUsage(body: Record<string, unknown>, replyText: string): Promise<Usage> {
  // Loaded on first use: the tokenizer's tables are large and most requests never need them.
  const { countTokens } = await import("gpt-tokenizer");
  const prompt = countTokens(textAndMedia(body, NOT_TEXT).texts.join("\n"));
  const completion = countTokens(replyText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
