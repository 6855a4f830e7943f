import type { VerdictFn } from "../checks";

/** Characters and tokens (OpenAI's o200k tokenizer, loaded when a token limit is first checked), each limit when set. */
export function lengthCheck(maxCharacters: number | undefined, maxTokens: number | undefined): VerdictFn {
  return async ({ text }) => {
    if (maxCharacters !== undefined && text.length > maxCharacters) return true;
    // Counting stops being needed once the text is longer than any tokenization of it could be short.
    if (maxTokens === undefined || text.length <= maxTokens) return false;
    const { countTokens } = await import("gpt-tokenizer");
    return countTokens(text) > maxTokens;
  };
}
