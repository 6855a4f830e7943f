import { type Static, Type as t } from "@sinclair/typebox";

/** Spec 2.1 and section 8: the limits a write is checked against (after zeros resolve to defaults). */
export const LIMITS = {
  additionalModels: 20,
  maxIterations: 20,
  semanticSearchLimit: 25,
} as const;

/** What a zero (or an omitted field) resolves to (spec 2.2). */
export const DEFAULTS = {
  max_iterations: 8,
  request_timeout_seconds: 120,
  history_retention_days: 30,
  semantic_search_threshold: 0.8,
  semantic_search_limit: 10,
  log_vector_store_namespace: "GatewayWarpLogs",
} as const;

/** Spec 2.3: a model dashboard users may switch to, identified by (provider, model). */
export const WarpModel = t.Object({
  provider: t.String(),
  model: t.String(),
  api_key_id: t.Optional(t.String()),
});
export type WarpModel = Static<typeof WarpModel>;

/**
 * Spec 2.1, the write body. The schema carries the types and bounds; zero is inside every bound
 * it resolves from, so a zero passes here and becomes the default before the rules run.
 */
export const WarpConfigInput = t.Object({
  enabled: t.Optional(t.Boolean()),
  provider: t.Optional(t.String()),
  model: t.Optional(t.String()),
  api_key_id: t.Optional(t.String()),
  additional_models: t.Optional(t.Array(WarpModel, { maxItems: LIMITS.additionalModels })),
  max_iterations: t.Optional(t.Integer({ minimum: 0, maximum: LIMITS.maxIterations })),
  request_timeout_seconds: t.Optional(t.Integer({ minimum: 0 })),
  history_retention_days: t.Optional(t.Integer({ minimum: 0 })),
  system_prompt_suffix: t.Optional(t.String()),
  embedding_provider: t.Optional(t.String()),
  embedding_model: t.Optional(t.String()),
  embedding_api_key_id: t.Optional(t.String()),
  embedding_dimension: t.Optional(t.Integer({ minimum: 0 })),
  log_vector_store_namespace: t.Optional(t.String()),
  semantic_search_threshold: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  semantic_search_limit: t.Optional(t.Integer({ minimum: 0, maximum: LIMITS.semanticSearchLimit })),
});
export type WarpConfigInput = Static<typeof WarpConfigInput>;

/** The resolved settings as stored: every field present, zeros replaced by their defaults. */
export type StoredWarpConfig = Required<Omit<WarpConfigInput, "additional_models">> & { additional_models: WarpModel[] };

/** The fields that decide how logs are embedded: changing any of them during a backfill is a 409. */
export const EMBEDDING_FIELDS = ["embedding_provider", "embedding_model", "embedding_api_key_id", "embedding_dimension", "log_vector_store_namespace"] as const;

/** Spec 2.2, what GET and PUT answer (view.ts): resolved values; no credential is part of it. */
export const WarpConfigReply = t.Object(
  {
    configured: t.Boolean({ description: "Whether Warp has a provider and model to run with." }),
    ...t.Required(t.Omit(WarpConfigInput, ["additional_models"])).properties,
    additional_models: t.Optional(t.Array(WarpModel, { description: "Omitted when only the default model is configured." })),
    vector_store_connected: t.Boolean({ description: "Whether the vector store answers." }),
  },
  { title: "WarpConfig", description: "Warp's configuration, zeros resolved to their defaults." },
);
