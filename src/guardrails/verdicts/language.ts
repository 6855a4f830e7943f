import type { VerdictFn } from "../checks";

/** Text too short for a detector to tell its language passes. */
const MIN_CHARACTERS = 12;

let detector: Promise<typeof import("tinyld")> | undefined;
/** tinyld's language tables take ~40 MB of memory: loaded when a language check first runs, not by every gateway at start. */
const loadDetector = () => (detector ??= import("tinyld"));

/** The text's language (ISO 639-1, as tinyld detects it) must be allowed and not denied; an undetected language passes. */
export function languageCheck(allowed: readonly string[] | undefined, denied: readonly string[] | undefined): VerdictFn {
  return async ({ text }) => {
    if (text.trim().length < MIN_CHARACTERS) return false;
    const language = (await loadDetector()).detect(text);
    if (!language) return false;
    return (allowed !== undefined && !allowed.includes(language)) || (denied?.includes(language) ?? false);
  };
}
