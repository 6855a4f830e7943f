/** Words that say nothing about which tool is meant. */
const STOPWORDS = new Set(
  "a an the and or of to in on at by for with from as is are be it its this that into over via all any each my me i you your we our please can could would should will do does get make use using want need find some which what who when how".split(" "),
);

/** Plurals and verb endings folded, so `invoices` finds `invoice` and `sending` finds `send`. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && /(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** The words of a text as the index keeps them: `listOpenIssues` and `list_open_issues` both give list, open, issue. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

// BM25's usual constants: how fast a repeated word stops adding, and how much a long document is discounted.
const K1 = 1.2;
const B = 0.75;

/** Okapi BM25 over documents given as their words; built once, scored per query. */
export class KeywordIndex {
  private readonly postings = new Map<string, Array<{ doc: number; count: number }>>();
  private readonly lengths: number[];
  private readonly averageLength: number;

  constructor(documents: readonly string[][]) {
    this.lengths = documents.map((words) => words.length);
    this.averageLength = this.lengths.reduce((sum, length) => sum + length, 0) / Math.max(documents.length, 1) || 1;
    documents.forEach((words, doc) => {
      const counts = new Map<string, number>();
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const [word, count] of counts) {
        const list = this.postings.get(word) ?? [];
        list.push({ doc, count });
        this.postings.set(word, list);
      }
    });
  }

  /** Each document's score for the query's words (0 for a document sharing none). */
  scores(query: readonly string[]): Float64Array {
    const scores = new Float64Array(this.lengths.length);
    for (const word of new Set(query)) {
      const list = this.postings.get(word);
      if (!list) continue;
      const idf = Math.log(1 + (this.lengths.length - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, count } of list) {
        const norm = K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        scores[doc]! += (idf * count * (K1 + 1)) / (count + norm);
      }
    }
    return scores;
  }
}
