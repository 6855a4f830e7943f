const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/** Where the string opened at `start` ends (its closing quote), or -1 when it never does. */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * Whether the JSON text `text` opens more than `limit` objects and arrays inside one another.
 * One pass without recursion that stops at the first level past the limit, and skips strings
 * with `indexOf`: a body of long messages costs little more than its brackets. Text that is not
 * JSON gets an answer too; the parse that follows refuses it.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  // Each level takes two characters at least.
  if (text.length <= limit * 2) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(text, index);
      if (index === -1) return false;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}
