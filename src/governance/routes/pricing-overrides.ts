import { Elysia, t } from "elysia";
import { ListQuery, PricingOverrideInput, PricingOverrideUpdateInput } from "../schemas";
import { type PricingOverrideStore, pricingOverrideView } from "../stores/pricing-overrides";
import { Deleted, replies } from "../../http/replies";
import { PricingOverrideList, PricingOverrideReply, PricingOverrideWritten } from "../replies";

const IdParams = t.Object({ id: t.String() });

/** /api/governance/pricing-overrides: operator prices that win over the shipped catalogue. */
export function pricingOverrideRoutes(overrides: PricingOverrideStore) {
  return new Elysia({ name: "governance-pricing-overrides", prefix: "/pricing-overrides" })
    .get(
      "/",
      ({ query }) => {
        const { rows, ...page } = overrides.overrides.page(query);
        return { pricing_overrides: rows.map(pricingOverrideView), ...page };
      },
      { query: ListQuery, ...replies({ 200: PricingOverrideList }, { summary: "List pricing overrides" }) },
    )
    .post(
      "/",
      async ({ body, set }) => {
        set.status = 201;
        return { message: "Pricing override created successfully", pricing_override: pricingOverrideView(await overrides.create(body)) };
      },
      { body: PricingOverrideInput, ...replies({ 201: PricingOverrideWritten }, { summary: "Create a pricing override" }) },
    )
    .get("/:id", ({ params }) => ({ pricing_override: pricingOverrideView(overrides.overrides.require(params.id)) }), { params: IdParams, ...replies({ 200: PricingOverrideReply }, { summary: "Get a pricing override" }) })
    .put(
      "/:id",
      async ({ params, body }) => ({ message: "Pricing override updated successfully", pricing_override: pricingOverrideView(await overrides.update(params.id, body)) }),
      { params: IdParams, body: PricingOverrideUpdateInput, ...replies({ 200: PricingOverrideWritten }, { summary: "Update a pricing override" }) },
    )
    .delete(
      "/:id",
      async ({ params }) => {
        await overrides.remove(params.id);
        return { message: "Pricing override deleted successfully" };
      },
      { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete a pricing override" }) },
    );
}
