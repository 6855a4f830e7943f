import type { StoredWarpConfig } from "../config/schema";

/** Where and how logs are embedded: vectors of one space are comparable, others are not. */
export interface EmbeddingSpace {
  namespace: string;
  provider: string;
  model: string;
  keyId: string;
  dimension: number;
  /** `provider/model#dimension`: what the stored vectors are tagged with. */
  id: string;
}

export function embeddingSpaceOf(config: StoredWarpConfig): EmbeddingSpace {
  const { embedding_provider: provider, embedding_model: model, embedding_dimension: dimension } = config;
  return { namespace: config.log_vector_store_namespace, provider, model, keyId: config.embedding_api_key_id, dimension, id: `${provider}/${model}#${dimension}` };
}
