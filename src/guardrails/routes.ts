import { Elysia, t } from "elysia";
import { noteAudit, principalOf } from "../access";
import { checkOptedInAddress, checkPrivateOptIn, type OutboundReach } from "../outbound/reach";
import { ListQuery } from "../governance/schemas";
import { guardrailView, type GuardrailPolicyStore } from "./policy-store";
import { GuardrailOne, GuardrailPage, GuardrailPolicyInput, GuardrailPolicyUpdate, GuardrailWritten } from "./schemas";
import { GuardrailScope } from "../db/schema/types";
import { Deleted, replies } from "../http/replies";

const IdParams = t.Object({ id: t.String() });
const GuardrailListQuery = t.Object({ ...ListQuery.properties, scope: t.Optional(GuardrailScope), scope_id: t.Optional(t.String()) });

type WrittenChecks = { checks?: Array<{ url?: string; allow_private_network?: boolean }> };

/**
 * An external check may reach a private address only at the word of one allowed to say so, as a
 * webhook may; its URL is checked against the address policy as written, and stored normalised.
 */
async function checkAddresses(request: Request, body: WrittenChecks, reach: OutboundReach): Promise<void> {
  for (const [index, check] of (body.checks ?? []).entries()) {
    if (check.allow_private_network === true) checkPrivateOptIn(principalOf(request), reach, `checks[${index}].allow_private_network`);
    if (check.url !== undefined) check.url = await checkOptedInAddress(check.url, check.allow_private_network === true, reach, `checks[${index}].url`);
  }
}

/** /api/guardrails: policies of checks on requests and replies; a check that does not compile is a 400 naming its field. */
export const guardrailRoutes = (store: GuardrailPolicyStore, reach: OutboundReach) =>
  new Elysia({ name: "guardrails", prefix: "/api/guardrails" })
    .get(
      "/",
      ({ query }) => {
        const { rows, ...page } = store.policies.page(query);
        const inScope = rows.filter((row) => (!query.scope || row.scope === query.scope) && (!query.scope_id || row.scopeId === query.scope_id));
        return { guardrails: inScope.map(guardrailView), ...page };
      },
      { query: GuardrailListQuery, ...replies({ 200: GuardrailPage }, { summary: "List guardrails", description: "Policies of checks on requests and replies, filtered by name, scope and scope id." }) },
    )
    .post(
      "/",
      async ({ body, request, set }) => {
        await checkAddresses(request, body, reach);
        const guardrail = guardrailView(await store.create(body));
        noteAudit(request, { targetId: guardrail.id, after: guardrail });
        set.status = 201;
        return { message: "Guardrail created successfully", guardrail };
      },
      { body: GuardrailPolicyInput, ...replies({ 201: GuardrailWritten }, { summary: "Create a guardrail", description: "A check that does not compile is a 400 naming its field." }) },
    )
    .get("/:id", ({ params }) => ({ guardrail: guardrailView(store.policies.require(params.id)) }), { params: IdParams, ...replies({ 200: GuardrailOne }, { summary: "Get a guardrail" }) })
    .put(
      "/:id",
      async ({ params, body, request }) => {
        await checkAddresses(request, body, reach);
        const before = guardrailView(store.policies.require(params.id));
        const guardrail = guardrailView(await store.update(params.id, body));
        noteAudit(request, { targetId: guardrail.id, before, after: guardrail });
        return { message: "Guardrail updated successfully", guardrail };
      },
      { params: IdParams, body: GuardrailPolicyUpdate, ...replies({ 200: GuardrailWritten }, { summary: "Update a guardrail" }) },
    )
    .delete(
      "/:id",
      async ({ params, request }) => {
        const before = guardrailView(store.policies.require(params.id));
        await store.remove(params.id);
        noteAudit(request, { targetId: params.id, before });
        return { message: "Guardrail deleted successfully" };
      },
      { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete a guardrail" }) },
    );
