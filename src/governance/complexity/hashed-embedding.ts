/** Dimensions words and word pairs are hashed into. */
const DIMENSIONS = 1024;

/** A sparse unit vector: its non-zero dimensions and their values. */
export interface SparseVector {
  indices: Uint16Array;
  values: Float32Array;
}

const WORD = /[\p{L}\p{N}_^]+/gu;

/** Words too common to say anything about a prompt's difficulty. */
const STOPWORDS = new Set(
  "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these those there here i me my you your we our they them he she his her do does did so not no yes ok please can could would should will just than then what which who whom how when where why about into over some any all each".split(" "),
);

/** Letters of a word that stand for all its forms: prove, proves, proved; summarize, summarise. */
const STEM = 6;

/** FNV-1a over a word's first STEM UTF-16 code units. */
function hashOf(word: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < word.length && index < STEM; index++) hash = Math.imul(hash ^ word.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/**
 * An embedding computed in-process, in microseconds: each word and each pair of neighbouring
 * words (lower-cased, common words left out) hashed into 1,024 dimensions, weighted by the log of
 * its count, normalised to length 1. It places a prompt by the words it shares with labelled
 * ones; no model is called.
 */
export function embedText(text: string): SparseVector {
  const counts = new Map<number, number>();
  const add = (hash: number) => counts.set(hash % DIMENSIONS, (counts.get(hash % DIMENSIONS) ?? 0) + 1);
  let previous = -1;
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    if (STOPWORDS.has(word)) continue;
    const hash = hashOf(word);
    add(hash);
    if (previous >= 0) add((Math.imul(previous, 0x9e3779b1) ^ hash) >>> 0);
    previous = hash;
  }
  const indices = new Uint16Array(counts.size);
  const values = new Float32Array(counts.size);
  let norm = 0;
  let at = 0;
  for (const [index, count] of counts) {
    const weight = 1 + Math.log(count);
    indices[at] = index;
    values[at++] = weight;
    norm += weight * weight;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let index = 0; index < values.length; index++) values[index]! *= scale;
  return { indices, values };
}

/** A sparse vector spread into a dense one, to compare many others with. */
export function densify(vector: SparseVector): Float32Array {
  const dense = new Float32Array(DIMENSIONS);
  for (let index = 0; index < vector.indices.length; index++) dense[vector.indices[index]!] = vector.values[index]!;
  return dense;
}

/** Cosine similarity of two unit vectors, one dense. */
export function similarity(dense: Float32Array, other: SparseVector): number {
  let sum = 0;
  for (let index = 0; index < other.indices.length; index++) sum += dense[other.indices[index]!]! * other.values[index]!;
  return sum;
}
