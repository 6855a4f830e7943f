import { Elysia, t } from "elysia";
import { principalOf } from "../access";
import { checkWrittenAddresses, mayReachPrivateNetwork, type OutboundReach } from "../outbound/reach";
import { checkKeyHealth } from "./key-health";
import { configuredModels } from "./model-listing";
import { keyView, providerView, type RuntimeKey } from "./runtime";
import { ProviderCreateInput, ProviderKeyInput, ProviderUpdateInput } from "../config/sections/providers";
import type { ProviderStore } from "./store";
import { Deleted, replies } from "../http/replies";
import { CheckedKey, ModelList, Provider, ProviderKey, ProviderKeyList, ProviderList } from "./replies";
import { providerExample, providerListExample } from "./examples";

const ProviderParams = t.Object({ provider: t.String() });
const KeyParams = t.Object({ provider: t.String(), key_id: t.String() });
const ModelsQuery = t.Object({ provider: t.Optional(t.String()) });

/** Lists the provider's models with each key (all of them when none are named) and records what each reached. */
async function checkKeys(store: ProviderStore, providerName: string, keyIds?: readonly string[]): Promise<Array<{ key: RuntimeKey; models: string[] }>> {
  const provider = store.require(providerName);
  const keys = provider.keys.filter((key) => !keyIds || keyIds.includes(key.id));
  return Promise.all(
    keys.map(async (key) => {
      const health = await checkKeyHealth(provider, key);
      return { key: await store.recordHealth(providerName, key.id, health), models: health.models };
    }),
  );
}

/**
 * The reach of private addresses a write leaves the provider with: its writer's when it carries an
 * address (a base URL, a key's endpoint or token URL), else as it was (undefined).
 */
async function reachWritten(request: Request, body: unknown, outbound: OutboundReach): Promise<boolean | undefined> {
  const principal = principalOf(request);
  return (await checkWrittenAddresses(body, principal, outbound)) ? mayReachPrivateNetwork(principal, outbound) : undefined;
}

/** GET /api/models: what every provider's enabled keys name or reach, with the keys that do. */
const modelRoutes = (store: ProviderStore) =>
  new Elysia({ name: "models" }).get(
    "/api/models",
    ({ query }) => {
      const models = configuredModels(store)
        .filter((entry) => !query.provider || entry.provider.name === query.provider)
        .map(({ id, provider, model, keyIds }) => ({ id, provider: provider.name, model, key_ids: keyIds }));
      return { models, count: models.length };
    },
    { query: ModelsQuery, ...replies({ 200: ModelList }, { summary: "List the models providers serve", description: "Every model the enabled keys name or reach, as `provider/model`, with the keys that serve it." }) },
  );

/**
 * /api/providers: providers and their keys (spec 2.7, 4.8). Every key written through the API
 * is checked by listing the provider's models with it (spec 2.7 `status`, `description`).
 */
export const providerRoutes = (store: ProviderStore, outbound: OutboundReach) => {
  const viewOf = (name: string) => providerView(store.require(name), store.health);
  const keyOf = (provider: string, key: RuntimeKey) => keyView(key, store.health.view(provider, key.id));
  return new Elysia({ name: "providers" }).use(modelRoutes(store)).group("/api/providers", (app) =>
    app
      .get("/", () => ({ providers: store.list().map((provider) => providerView(provider, store.health)) }), replies({ 200: ProviderList }, { summary: "List providers", examples: { 200: providerListExample } }))
      .post(
        "/",
        async ({ body, set, request }) => {
          const reach = (await reachWritten(request, body, outbound)) ?? mayReachPrivateNetwork(principalOf(request), outbound);
          await store.create(body.provider, body, reach);
          await checkKeys(store, body.provider);
          set.status = 201;
          return viewOf(body.provider);
        },
        { body: ProviderCreateInput, ...replies({ 201: Provider }, { summary: "Create a provider", description: "Each key is checked by listing the provider's models with it; the reply shows what each found.", examples: { 201: providerExample } }) },
      )
      .get("/:provider", ({ params }) => viewOf(params.provider), { params: ProviderParams, ...replies({ 200: Provider }, { summary: "Get a provider", examples: { 200: providerExample } }) })
      .put(
        "/:provider",
        async ({ params, body, request }) => {
          await store.update(params.provider, body, await reachWritten(request, body, outbound));
          await checkKeys(store, params.provider);
          return viewOf(params.provider);
        },
        { params: ProviderParams, body: ProviderUpdateInput, ...replies({ 200: Provider }, { summary: "Update a provider", description: "`keys`, when given, replaces the provider's keys; a redacted value keeps the stored secret." }) },
      )
      .delete(
        "/:provider",
        async ({ params }) => {
          await store.remove(params.provider);
          return { message: "Provider deleted successfully" };
        },
        { params: ProviderParams, ...replies({ 200: Deleted }, { summary: "Delete a provider" }) },
      )
      .get("/:provider/keys", ({ params }) => ({ keys: store.require(params.provider).keys.map((key) => keyOf(params.provider, key)) }), { params: ProviderParams, ...replies({ 200: ProviderKeyList }, { summary: "List a provider's keys" }) })
      .post(
        "/:provider/keys",
        async ({ params, body, set, request }) => {
          const key = await store.addKey(params.provider, body, await reachWritten(request, body, outbound));
          const [checked] = await checkKeys(store, params.provider, [key.id]);
          set.status = 201;
          return keyOf(params.provider, checked!.key);
        },
        { params: ProviderParams, body: ProviderKeyInput, ...replies({ 201: ProviderKey }, { summary: "Add a key to a provider" }) },
      )
      .get("/:provider/keys/:key_id", ({ params }) => keyOf(params.provider, store.requireKey(params.provider, params.key_id)), { params: KeyParams, ...replies({ 200: ProviderKey }, { summary: "Get a provider key" }) })
      .put(
        "/:provider/keys/:key_id",
        async ({ params, body, request }) => {
          await store.updateKey(params.provider, params.key_id, body, await reachWritten(request, body, outbound));
          const [checked] = await checkKeys(store, params.provider, [params.key_id]);
          return keyOf(params.provider, checked!.key);
        },
        { params: KeyParams, body: ProviderKeyInput, ...replies({ 200: ProviderKey }, { summary: "Update a provider key" }) },
      )
      .delete(
        "/:provider/keys/:key_id",
        async ({ params }) => {
          await store.removeKey(params.provider, params.key_id);
          return { message: "Key deleted successfully" };
        },
        { params: KeyParams, ...replies({ 200: Deleted }, { summary: "Delete a provider key" }) },
      )
      .post(
        "/:provider/keys/:key_id/refresh-models",
        async ({ params }) => {
          store.requireKey(params.provider, params.key_id);
          const [checked] = await checkKeys(store, params.provider, [params.key_id]);
          return { ...keyOf(params.provider, checked!.key), reachable_models: checked!.models };
        },
        { params: KeyParams, ...replies({ 200: CheckedKey }, { summary: "Check a provider key's models again" }) },
      ),
  );
};
