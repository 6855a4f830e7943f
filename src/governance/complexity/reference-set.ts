import type { ComplexityReference } from "../../db/schema/types";
import { densify, embedText, similarity, type SparseVector } from "./hashed-embedding";

/** References compared with a prompt: the most similar vote. */
const NEIGHBOURS = 5;
/** Below this similarity no reference resembles the prompt: it stays undecided. */
export const MIN_SIMILARITY = 0.2;

/** A reference votes when its similarity is at least this share of the nearest one's. */
const VOTING_SHARE = 0.5;

interface Embedded {
  vector: SparseVector;
  tier: number;
}

/** The score the nearest references give a prompt, and how similar the nearest one is. */
export interface Placement {
  score: number;
  similarity: number;
}

/** Labelled reference prompts, embedded once when the set is loaded or replaced. */
export class ReferenceSet {
  private readonly embedded: Embedded[];

  constructor(
    references: readonly ComplexityReference[],
    private readonly tiers: readonly string[],
  ) {
    this.embedded = references.map(({ text, tier }) => ({ vector: embedText(text), tier: Math.max(0, tiers.indexOf(tier)) }));
  }

  /**
   * The tier the nearest references vote for, each vote weighted by its similarity, scored at the
   * middle of that tier (tier i of n: (i + 0.5) / n); undefined when none reaches MIN_SIMILARITY.
   */
  place(text: string): Placement | undefined {
    if (this.embedded.length === 0 || !text) return undefined;
    const query = densify(embedText(text));
    const nearest: Array<{ similarity: number; tier: number }> = [];
    for (const reference of this.embedded) {
      const found = similarity(query, reference.vector);
      if (nearest.length === NEIGHBOURS && found <= nearest[NEIGHBOURS - 1]!.similarity) continue;
      nearest.push({ similarity: found, tier: reference.tier });
      nearest.sort((a, b) => b.similarity - a.similarity);
      if (nearest.length > NEIGHBOURS) nearest.pop();
    }
    const best = nearest[0]!.similarity;
    if (best < MIN_SIMILARITY) return undefined;
    const votes = new Float64Array(this.tiers.length);
    // Only references nearly as close as the nearest vote: a crowd of faint resemblances does not outvote a close one.
    for (const near of nearest) if (near.similarity >= best * VOTING_SHARE) votes[near.tier]! += near.similarity;
    const winner = votes.indexOf(Math.max(...votes));
    return { score: (winner + 0.5) / this.tiers.length, similarity: best };
  }
}
