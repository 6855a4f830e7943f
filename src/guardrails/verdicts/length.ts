import { countTokens } from "gpt-tokenizer";
import type { VerdictFn } from "../checks";

/** Characters and tokens (OpenAI's o200k tokenizer), each limit when set. */
export function lengthCheck(maxCharacters: number | undefined, maxTokens: number | undefined): VerdictFn {
  return ({ text }) => {
    if (maxCharacters !== undefined && text.length > maxCharacters) return true;
    // Counting stops being needed once the text is longer than any tokenization of it could be short.
    return maxTokens !== undefined && text.length > maxTokens && countTokens(text) > maxTokens;
  };
}
