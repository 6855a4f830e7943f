import { Elysia, t } from "elysia";
import { keyView, providerView } from "./runtime";
import { ProviderCreateInput, ProviderKeyInput, ProviderUpdateInput } from "./schemas";
import type { ProviderStore } from "./store";

const ProviderParams = t.Object({ provider: t.String() });
const KeyParams = t.Object({ provider: t.String(), key_id: t.String() });

/** /api/providers: providers and their keys (spec 2.7, 4.8). */
export const providerRoutes = (store: ProviderStore) =>
  new Elysia({ name: "providers", prefix: "/api/providers" })
    .get("/", () => ({ providers: store.list().map(providerView) }))
    .post(
      "/",
      async ({ body, set }) => {
        set.status = 201;
        return providerView(await store.create(body.provider, body));
      },
      { body: ProviderCreateInput },
    )
    .get("/:provider", ({ params }) => providerView(store.require(params.provider)), { params: ProviderParams })
    .put("/:provider", async ({ params, body }) => providerView(await store.update(params.provider, body)), { params: ProviderParams, body: ProviderUpdateInput })
    .delete(
      "/:provider",
      async ({ params }) => {
        await store.remove(params.provider);
        return { message: "Provider deleted successfully" };
      },
      { params: ProviderParams },
    )
    .get("/:provider/keys", ({ params }) => ({ keys: store.require(params.provider).keys.map(keyView) }), { params: ProviderParams })
    .post(
      "/:provider/keys",
      async ({ params, body, set }) => {
        set.status = 201;
        return keyView(await store.addKey(params.provider, body));
      },
      { params: ProviderParams, body: ProviderKeyInput },
    )
    .get("/:provider/keys/:key_id", ({ params }) => keyView(store.requireKey(params.provider, params.key_id)), { params: KeyParams })
    .put("/:provider/keys/:key_id", async ({ params, body }) => keyView(await store.updateKey(params.provider, params.key_id, body)), { params: KeyParams, body: ProviderKeyInput })
    .delete(
      "/:provider/keys/:key_id",
      async ({ params }) => {
        await store.removeKey(params.provider, params.key_id);
        return { message: "Key deleted successfully" };
      },
      { params: KeyParams },
    );
