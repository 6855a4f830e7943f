import { Elysia, t } from "elysia";
import { notFound } from "../http/errors";
import type { CacheStore } from "./store";

/** /api/cache: drop one cached response (by the id in its `x-gw-cache-id` header) or every response under a cache key. */
export const cacheRoutes = (store: CacheStore) =>
  new Elysia({ name: "cache", prefix: "/api/cache" })
    .delete(
      "/clear/:cacheId",
      async ({ params }) => {
        if (!(await store.deleteById(params.cacheId))) throw notFound(`cache entry '${params.cacheId}' not found`, "caller_cache_entry_not_found");
        return { message: "Cache entry cleared successfully" };
      },
      { params: t.Object({ cacheId: t.String() }) },
    )
    .delete(
      "/clear-by-key/:cacheKey",
      async ({ params }) => {
        const deleted = await store.deleteByKey(params.cacheKey);
        return { message: "Cache cleared successfully", deleted };
      },
      { params: t.Object({ cacheKey: t.String() }) },
    );
