import { rewriteEveryString } from "./body-text";
import type { Found, RequestRun } from "./request-run";

/** Where each string starts in the strings joined end to end. */
function offsetsOf(texts: readonly string[]): number[] {
  const offsets = [0];
  for (const text of texts) offsets.push(offsets.at(-1)! + text.length);
  return offsets;
}

/**
 * Matches of the strings joined end to end that cross from one string into the next (a secret
 * split across two messages or two content parts), cut into one piece per string: the first
 * carries the whole value, the others only continue it. Matches overlapping one found within a
 * string are left to that one.
 */
function crossingMatches(texts: readonly string[], within: readonly Found[][], run: RequestRun): void {
  const offsets = offsetsOf(texts);
  const taken = within.flatMap((found, index) => found.map((item) => [offsets[index]! + item.start, offsets[index]! + item.end] as const));
  const joined = texts.join("");
  for (const match of run.find(joined, "input")) {
    const first = offsets.findLastIndex((offset) => offset <= match.start);
    if (match.end <= offsets[first + 1]! || taken.some(([start, end]) => start < match.end && match.start < end)) continue;
    for (let index = first; offsets[index]! < match.end; index++) {
      const start = Math.max(match.start, offsets[index]!) - offsets[index]!;
      const end = Math.min(match.end, offsets[index + 1]!) - offsets[index]!;
      if (end > start) within[index]!.push(index === first ? { ...match, start, end, whole: joined.slice(match.start, match.end) } : { ...match, start, end, continuation: true });
    }
  }
  for (const found of within) found.sort((a, b) => a.start - b.start);
}

/**
 * The request body with the input's pattern checks applied to every string a provider receives
 * (a tool call's arguments, an Anthropic tool_use's input, `user`, `name`), and to matches that
 * cross from one string into the next.
 */
export function rewriteInput<T>(body: T, run: RequestRun): T {
  if (run.applied.matches.input.length === 0) return body;
  const texts: string[] = [];
  rewriteEveryString(body, (text) => {
    texts.push(text);
    return text;
  });
  const within = texts.map((text) => run.find(text, "input"));
  if (texts.length > 1) crossingMatches(texts, within, run);
  let index = 0;
  return rewriteEveryString(body, (text) => run.rewrite(text, "input", within[index++]));
}
