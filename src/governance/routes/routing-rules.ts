import { Elysia, t } from "elysia";
import { ListQuery, RoutingRuleInput, RoutingRuleUpdateInput } from "../schemas";
import { type RoutingRuleStore, routingRuleView } from "../stores/routing-rules";
import { Deleted, replies } from "../../http/replies";
import { RoutingRuleList, RoutingRuleReply, RoutingRuleWritten } from "../replies";

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
      { query: ListQuery, ...replies({ 200: RoutingRuleList }, { summary: "List routing rules" }) },
    )
    .post(
      "/",
      async ({ body, set }) => {
        set.status = 201;
        return { message: "Routing rule created successfully", rule: routingRuleView(await rules.create(body)) };
      },
      { body: RoutingRuleInput, ...replies({ 201: RoutingRuleWritten }, { summary: "Create a routing rule", description: "An invalid CEL expression is a 400." }) },
    )
    .get("/:id", ({ params }) => ({ rule: routingRuleView(rules.rules.require(params.id)) }), { params: IdParams, ...replies({ 200: RoutingRuleReply }, { summary: "Get a routing rule" }) })
    .put("/:id", async ({ params, body }) => ({ message: "Routing rule updated successfully", rule: routingRuleView(await rules.update(params.id, body)) }), { params: IdParams, body: RoutingRuleUpdateInput, ...replies({ 200: RoutingRuleWritten }, { summary: "Update a routing rule" }) })
    .delete(
      "/:id",
      async ({ params }) => {
        await rules.remove(params.id);
        return { message: "Routing rule deleted successfully" };
      },
      { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete a routing rule" }) },
    );
}
