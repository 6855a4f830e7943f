import { Elysia, t } from "elysia";
import { ListQuery, RoutingRuleInput, RoutingRuleUpdateInput } from "../schemas";
import { type RoutingRuleStore, routingRuleView } from "../stores/routing-rules";
import { answersCreated } from "../../http/replies";

const IdParams = t.Object({ id: t.String() });

/** /api/governance/routing-rules: an invalid CEL expression is a 400 when written. */
export function routingRuleRoutes(rules: RoutingRuleStore) {
  return new Elysia({ name: "governance-routing-rules", prefix: "/routing-rules" })
    .get(
      "/",
      ({ query }) => {
        const { rows, ...page } = rules.rules.page(query);
        return { rules: rows.map(routingRuleView), ...page };
      },
      { query: ListQuery },
    )
    .post(
      "/",
      async ({ body, set }) => {
        set.status = 201;
        return { message: "Routing rule created successfully", rule: routingRuleView(await rules.create(body)) };
      },
      { body: RoutingRuleInput, ...answersCreated("Create a routing rule") },
    )
    .get("/:id", ({ params }) => ({ rule: routingRuleView(rules.rules.require(params.id)) }), { params: IdParams })
    .put("/:id", async ({ params, body }) => ({ message: "Routing rule updated successfully", rule: routingRuleView(await rules.update(params.id, body)) }), { params: IdParams, body: RoutingRuleUpdateInput })
    .delete(
      "/:id",
      async ({ params }) => {
        await rules.remove(params.id);
        return { message: "Routing rule deleted successfully" };
      },
      { params: IdParams },
    );
}
