/** Embeds texts, one vector per text in order; the gateway's is its own pipeline (embedder.ts). */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

function unit(vector: readonly number[]): Float32Array {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

/**
 * The tools' embeddings held in memory and compared exactly: a catalogue of a few hundred tools
 * is a few megabytes of floats, and scoring all of them against a query takes well under a millisecond.
 */
export class VectorIndex {
  private constructor(private readonly vectors: Float32Array[]) {}

  static async build(texts: string[], embed: EmbedTexts): Promise<VectorIndex> {
    const vectors = texts.length === 0 ? [] : await embed(texts);
    if (vectors.length !== texts.length) throw new Error(`the embedding model answered ${vectors.length} vectors for ${texts.length} tools`);
    return new VectorIndex(vectors.map(unit));
  }

  /** Each tool's cosine similarity to the query's vector. */
  scores(query: readonly number[]): Float64Array {
    const probe = unit(query);
    return Float64Array.from(this.vectors, (vector) => {
      if (vector.length !== probe.length) return 0;
      let sum = 0;
      for (let index = 0; index < vector.length; index++) sum += vector[index]! * probe[index]!;
      return sum;
    });
  }
}
