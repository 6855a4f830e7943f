import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { badRequest } from "../http/errors";
import { fieldFromPath } from "../http/field-path";
import { violationSentence } from "../http/validation-sentence";
import { LONGEST_TTL_SECONDS } from "./cache-directives";

/** The `response_cache` plugin's config (PUT /api/plugins/response_cache, or config.json `plugins`). */
export const ResponseCacheConfig = t.Object(
  {
    /** Used when the caller sends no `x-gw-cache-key`; unset, only callers who send one are cached. */
    default_key: t.Optional(t.String({ minLength: 1 })),
    /** Lifetime of an entry unless `x-gw-cache-ttl` says otherwise; default 300. */
    ttl_seconds: t.Optional(t.Integer({ minimum: 1, maximum: LONGEST_TTL_SECONDS })),
    /** Entries answer only requests for the same model; default true. */
    cache_by_model: t.Optional(t.Boolean()),
    /** Entries answer only requests for the same provider; default true. */
    cache_by_provider: t.Optional(t.Boolean()),
    /** Larger responses are not stored; default 2 MiB. */
    max_entry_bytes: t.Optional(t.Integer({ minimum: 1 })),
    /** Semantic matching on top of the exact one; off unless set. */
    semantic: t.Optional(
      t.Object(
        {
          /** `provider/model`, called through the gateway's own pipeline. */
          embedding_model: t.String({ pattern: "^[^/\\s]+/\\S" }),
          /** Cosine similarity a cached request must reach; default 0.8. */
          threshold: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 1 })),
          /** Asked of the embedding model when set. */
          dimensions: t.Optional(t.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResponseCacheConfig = Static<typeof ResponseCacheConfig>;

export interface ResolvedCacheConfig {
  defaultKey?: string;
  ttlSeconds: number;
  cacheByModel: boolean;
  cacheByProvider: boolean;
  maxEntryBytes: number;
  semantic?: { embeddingModel: string; threshold: number; dimensions?: number };
}

/** A 400 naming the first wrong field as `config.<field>`. */
export function validateCacheConfig(config: Record<string, unknown>): void {
  const first = Value.Errors(ResponseCacheConfig, config).First();
  if (!first) return;
  const field = `config${fieldFromPath(first.path) ? `.${fieldFromPath(first.path)}` : ""}`;
  throw badRequest(`${field} ${violationSentence(first)}`, field, "caller_invalid_plugin_config");
}

export function resolveCacheConfig(config: ResponseCacheConfig): ResolvedCacheConfig {
  const semantic = config.semantic;
  return {
    defaultKey: config.default_key,
    ttlSeconds: config.ttl_seconds ?? 300,
    cacheByModel: config.cache_by_model ?? true,
    cacheByProvider: config.cache_by_provider ?? true,
    maxEntryBytes: config.max_entry_bytes ?? 2 * 1024 * 1024,
    semantic: semantic && { embeddingModel: semantic.embedding_model, threshold: semantic.threshold ?? 0.8, dimensions: semantic.dimensions },
  };
}
