/**
 * Text as the pattern checks read it: NFKC (fullwidth digits, ligatures and other look-alikes as
 * their plain form) without the characters that show nothing (zero-width spaces and joiners,
 * soft hyphens, word joiners, byte-order marks), which a writer may slip inside a secret.
 */

const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]/;
const ASCII_ONLY = /^[\x00-\x7F]*$/;

export interface NormalisedText {
  text: string;
  /** For each UTF-16 unit of `text`, where it came from in the original; one more entry for the end. */
  starts: number[];
}

/** The text as matched, with where each unit came from; undefined when it is its own normal form (plain ASCII: no cost beyond one test). */
export function normalisedText(text: string): NormalisedText | undefined {
  if (ASCII_ONLY.test(text) || (!INVISIBLE.test(text) && text.normalize("NFKC") === text)) return undefined;
  let normal = "";
  const starts: number[] = [];
  for (let at = 0; at < text.length; ) {
    const width = text.codePointAt(at)! > 0xffff ? 2 : 1;
    const char = text.slice(at, at + width);
    if (!INVISIBLE.test(char)) {
      const form = char.normalize("NFKC");
      for (let unit = 0; unit < form.length; unit++) starts.push(at);
      normal += form;
    }
    at += width;
  }
  starts.push(text.length);
  return { text: normal, starts };
}

/** A span of the normalised text, as the span of the original it came from. */
export const originalSpan = (view: NormalisedText, span: { start: number; end: number }) => ({ start: view.starts[span.start]!, end: view.starts[span.end]! });
