import { Elysia, t } from "elysia";
import { assertCanGrant } from "../grants";
import { knownPermissionIds } from "../permissions";
import { noteAudit, principalOf } from "../request-context";
import { ApiKeyCreated, ApiKeyCreateInput, ApiKeyListQuery, ApiKeyPage, ApiKeyReply, ApiKeyUpdateInput } from "./schemas";
import type { ApiKeyStore } from "./store";
import { Deleted, replies } from "../../http/replies";

const KeyParams = t.Object({ id: t.String() });

/** /api/api-keys (enterprise, spec 4.2 and 4.3). */
export const apiKeyRoutes = (store: ApiKeyStore) =>
  new Elysia({ name: "api-key-routes", prefix: "/api/api-keys" })
    .get("/", ({ query }) => store.list(query), { query: ApiKeyListQuery, ...replies({ 200: ApiKeyPage }, { summary: "List management API keys" }) })
    .post(
      "/",
      async ({ request, body, set }) => {
        const principal = principalOf(request);
        assertCanGrant(principal, body.scopes ?? [], "scopes");
        const created = await store.create(body, { type: principal.type, id: principal.id });
        noteAudit(request, { targetId: created.api_key.id, after: created.api_key });
        set.status = 201;
        return created;
      },
      { body: ApiKeyCreateInput, ...replies({ 201: ApiKeyCreated }, { summary: "Create a management API key", description: "The key's value is in this reply only; it is stored as a hash." }) },
    )
    .get("/:id", ({ params }) => store.require(params.id), { params: KeyParams, ...replies({ 200: ApiKeyReply }, { summary: "Get a management API key" }) })
    .put(
      "/:id",
      async ({ request, params, body }) => {
        const before = await store.require(params.id);
        if (body.scopes) {
          // Scopes the key already has may stay; only additions are grants.
          const added = knownPermissionIds(body.scopes, "scopes").filter((id) => !before.scopes.includes(id));
          assertCanGrant(principalOf(request), added, "scopes");
        }
        const after = await store.update(params.id, body);
        noteAudit(request, { before, after });
        return after;
      },
      { params: KeyParams, body: ApiKeyUpdateInput, ...replies({ 200: ApiKeyReply }, { summary: "Update a management API key" }) },
    )
    .delete(
      "/:id",
      async ({ request, params }) => {
        noteAudit(request, { before: await store.require(params.id) });
        await store.remove(params.id);
        return { message: "API key deleted successfully" };
      },
      { params: KeyParams, ...replies({ 200: Deleted }, { summary: "Delete a management API key" }) },
    );
