import type { Database } from "../db/client";
import type { Inference } from "../inference/handle";
import type { BuiltinPlugin } from "../plugins";
import { ResponseCacheHooks } from "./cache-hooks";
import { type ResponseCacheConfig, resolveCacheConfig, validateCacheConfig } from "./config";
import { pipelineEmbedder } from "./embedder";
import { cacheRoutes } from "./routes";
import { CacheStore } from "./store";

export { ResponseCacheConfig } from "./config";

/**
 * The response cache: the `response_cache` built-in plugin and /api/cache. `inference` is the
 * pipeline the semantic cache embeds through (resolved late: the pipeline's hooks include the
 * cache itself).
 */
export function createResponseCache(db: Database, inference: () => Inference) {
  const store = new CacheStore(db);
  const embed = pipelineEmbedder(inference);
  const builtin: BuiltinPlugin = {
    name: "response_cache",
    placement: "after-custom",
    failClosed: false,
    validateConfig: validateCacheConfig,
    create(config, host) {
      validateCacheConfig(config);
      return new ResponseCacheHooks(resolveCacheConfig(config as ResponseCacheConfig), { store, embed }, host);
    },
  };
  return { builtin, routes: cacheRoutes(store) };
}
