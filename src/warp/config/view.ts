import { isConfigured } from "./resolve";
import type { StoredWarpConfig } from "./schema";

/**
 * Spec 2.2, the read shape: resolved values, `configured` by its rule, whether the vector store
 * answers. Key references are shown in the clear; no credential is ever part of the config.
 * `additional_models` is omitted when only the default is configured.
 */
export function warpConfigView(config: StoredWarpConfig, vectorStoreConnected: boolean) {
  const { additional_models, ...settings } = config;
  return {
    configured: isConfigured(config),
    ...settings,
    ...(additional_models.length > 0 ? { additional_models } : {}),
    vector_store_connected: vectorStoreConnected,
  };
}
