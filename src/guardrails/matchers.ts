import { RE2JS } from "re2js";
import { badRequest } from "../http/errors";
import type { Detector } from "./detectors";

/** A span of text a matcher found. */
export interface Span {
  start: number;
  end: number;
}

/** Finds values of one kind in text; how a stream must hold back text for it (see Detector). */
export interface Matcher {
  readonly label: string;
  find(text: string): Span[];
  readonly spansWhitespace: boolean;
  readonly maxLength: number;
  readonly openingAt?: (text: string) => number | undefined;
}

export function detectorMatcher(detector: Detector): Matcher {
  return {
    label: detector.label,
    spansWhitespace: detector.spansWhitespace,
    maxLength: detector.maxLength,
    openingAt: detector.openingAt,
    find: detector.find ?? ((text) => {
      const spans: Span[] = [];
      for (const match of text.matchAll(detector.pattern)) {
        if (!detector.confirm || detector.confirm(match[0])) spans.push({ start: match.index, end: match.index + match[0].length });
      }
      return spans;
    }),
  };
}

/** The longest text a custom pattern is assumed to match in a stream (what is held back for it). */
const CUSTOM_MAX_LENGTH = 256;

/** An RE2 pattern: linear time, so a policy's pattern cannot stall a request. */
export function regexMatcher(pattern: string, label: string, caseSensitive: boolean, param: string): Matcher {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw badRequest(`${param}: '${pattern}' does not compile as RE2: ${(error as Error).message}`, param);
  }
  if (re.matches("")) throw badRequest(`${param}: '${pattern}' matches empty text`, param);
  return {
    label,
    spansWhitespace: true,
    maxLength: CUSTOM_MAX_LENGTH,
    find(text) {
      const spans: Span[] = [];
      const matcher = re.matcher(text);
      while (matcher.find()) spans.push({ start: matcher.start(), end: matcher.end() });
      return spans;
    },
  };
}

const escapeRegExp = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whole words or phrases; escaped, so the alternation cannot backtrack badly. */
export function wordListMatcher(words: readonly string[], label: string, caseSensitive: boolean): Matcher {
  const sorted = [...new Set(words)].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${sorted.map(escapeRegExp).join("|")})(?![\\p{L}\\p{N}_])`, caseSensitive ? "gu" : "giu");
  return {
    label,
    spansWhitespace: sorted.some((word) => /\s/.test(word)),
    maxLength: sorted[0]!.length + 1,
    find(text) {
      return [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
    },
  };
}
