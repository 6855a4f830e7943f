import { Elysia, t } from "elysia";
import { noteAudit } from "../access";
import { ListQuery } from "../governance/schemas";
import { guardrailView, type GuardrailPolicyStore } from "./policy-store";
import { GuardrailPolicyInput, GuardrailPolicyUpdate, GuardrailScope } from "./schemas";

const IdParams = t.Object({ id: t.String() });
const GuardrailListQuery = t.Object({ ...ListQuery.properties, scope: t.Optional(GuardrailScope), scope_id: t.Optional(t.String()) });

/** /api/guardrails: policies of checks on requests and replies; a check that does not compile is a 400 naming its field. */
export const guardrailRoutes = (store: GuardrailPolicyStore) =>
  new Elysia({ name: "guardrails", prefix: "/api/guardrails" })
    .get(
      "/",
      ({ query }) => {
        const { rows, ...page } = store.policies.page(query);
        const inScope = rows.filter((row) => (!query.scope || row.scope === query.scope) && (!query.scope_id || row.scopeId === query.scope_id));
        return { guardrails: inScope.map(guardrailView), ...page };
      },
      { query: GuardrailListQuery },
    )
    .post(
      "/",
      async ({ body, request, set }) => {
        const guardrail = guardrailView(await store.create(body));
        noteAudit(request, { targetId: guardrail.id, after: guardrail });
        set.status = 201;
        return { message: "Guardrail created successfully", guardrail };
      },
      { body: GuardrailPolicyInput },
    )
    .get("/:id", ({ params }) => ({ guardrail: guardrailView(store.policies.require(params.id)) }), { params: IdParams })
    .put(
      "/:id",
      async ({ params, body, request }) => {
        const before = guardrailView(store.policies.require(params.id));
        const guardrail = guardrailView(await store.update(params.id, body));
        noteAudit(request, { targetId: guardrail.id, before, after: guardrail });
        return { message: "Guardrail updated successfully", guardrail };
      },
      { params: IdParams, body: GuardrailPolicyUpdate },
    )
    .delete(
      "/:id",
      async ({ params, request }) => {
        const before = guardrailView(store.policies.require(params.id));
        await store.remove(params.id);
        noteAudit(request, { targetId: params.id, before });
        return { message: "Guardrail deleted successfully" };
      },
      { params: IdParams },
    );
