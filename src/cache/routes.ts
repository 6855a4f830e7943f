import { Elysia, t } from "elysia";
import { notFound } from "../http/errors";
import { Deleted, Message, replies } from "../http/replies";
import type { CacheStore } from "./store";

const KeyCleared = t.Object({ message: Message, deleted: t.Integer({ description: "Entries dropped; 0 when the key had none." }) }, { title: "CacheKeyCleared" });

/** /api/cache: drop one cached response (by the id in its `x-gw-cache-id` header) or every response under a cache key. */
export const cacheRoutes = (store: CacheStore) =>
  new Elysia({ name: "cache", prefix: "/api/cache" })
    .delete(
      "/clear/:cacheId",
      async ({ params }) => {
        if (!(await store.deleteById(params.cacheId))) throw notFound(`cache entry '${params.cacheId}' not found`, "caller_cache_entry_not_found");
        return { message: "Cache entry cleared successfully" };
      },
      { params: t.Object({ cacheId: t.String() }), ...replies({ 200: Deleted }, { summary: "Clear one cached response", description: "The id is the `x-gw-cache-id` header of the answer that stored it." }) },
    )
    .delete(
      "/clear-by-key/:cacheKey",
      async ({ params }) => {
        const deleted = await store.deleteByKey(params.cacheKey);
        return { message: "Cache cleared successfully", deleted };
      },
      { params: t.Object({ cacheKey: t.String() }), ...replies({ 200: KeyCleared }, { summary: "Clear every cached response under a cache key", description: "The key is the `x-gw-cache-key` the requests carried." }) },
    );
