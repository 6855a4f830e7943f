import { detect } from "tinyld";
import type { VerdictFn } from "../checks";

/** Text too short for a detector to tell its language passes. */
const MIN_CHARACTERS = 12;

/** The text's language (ISO 639-1, as tinyld detects it) must be allowed and not denied; an undetected language passes. */
export function languageCheck(allowed: readonly string[] | undefined, denied: readonly string[] | undefined): VerdictFn {
  return ({ text }) => {
    if (text.trim().length < MIN_CHARACTERS) return false;
    const language = detect(text);
    if (!language) return false;
    return (allowed !== undefined && !allowed.includes(language)) || (denied?.includes(language) ?? false);
  };
}
