import { DEFAULTS, type StoredWarpConfig, type WarpConfigInput, type WarpModel } from "./schema";

const orDefault = <T extends number>(value: number | undefined, fallback: T) => (value ? value : fallback);
const isBlank = (value: string) => value.trim() === "";

/** The copy of a model entry that is stored: an empty key reference is the same as none. */
const storedModel = ({ provider, model, api_key_id }: WarpModel): WarpModel => (api_key_id ? { provider, model, api_key_id } : { provider, model });

/**
 * Spec 4.1 rules 1 and 6: a write replaces everything, so an omitted field takes its empty or
 * default value; a zero in a defaulted field resolves to the default before validation.
 */
export function resolveWarpConfig(input: WarpConfigInput): StoredWarpConfig {
  const namespace = input.log_vector_store_namespace ?? "";
  return {
    enabled: input.enabled ?? false,
    provider: input.provider ?? "",
    model: input.model ?? "",
    api_key_id: input.api_key_id ?? "",
    additional_models: (input.additional_models ?? []).map(storedModel),
    max_iterations: orDefault(input.max_iterations, DEFAULTS.max_iterations),
    request_timeout_seconds: orDefault(input.request_timeout_seconds, DEFAULTS.request_timeout_seconds),
    history_retention_days: orDefault(input.history_retention_days, DEFAULTS.history_retention_days),
    system_prompt_suffix: input.system_prompt_suffix ?? "",
    embedding_provider: input.embedding_provider ?? "",
    embedding_model: input.embedding_model ?? "",
    embedding_api_key_id: input.embedding_api_key_id ?? "",
    embedding_dimension: input.embedding_dimension ?? 0,
    log_vector_store_namespace: isBlank(namespace) ? DEFAULTS.log_vector_store_namespace : namespace,
    semantic_search_threshold: orDefault(input.semantic_search_threshold, DEFAULTS.semantic_search_threshold),
    semantic_search_limit: orDefault(input.semantic_search_limit, DEFAULTS.semantic_search_limit),
  };
}

/** What GET answers before the first write. */
export const UNSET_WARP_CONFIG: StoredWarpConfig = resolveWarpConfig({});

/**
 * Spec 2.2: usable only when enabled with a default model and a complete embedding space. A key
 * is not part of the test (providers such as a local server need none).
 */
export function isConfigured(config: StoredWarpConfig): boolean {
  return (
    config.enabled &&
    !isBlank(config.provider) &&
    !isBlank(config.model) &&
    !isBlank(config.embedding_provider) &&
    !isBlank(config.embedding_model) &&
    config.embedding_dimension > 0 &&
    !isBlank(config.log_vector_store_namespace)
  );
}
