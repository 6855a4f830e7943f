import { Elysia } from "elysia";
import { replies } from "../../http/replies";
import { classify } from "../complexity/classify";
import { Classified, ClassifyInput, ComplexityInput, ComplexitySettings, ComplexityWritten } from "../complexity/schemas";
import type { ComplexityStore } from "../complexity/store";

/** /api/governance/complexity: the tiers routing rules read as `complexity_tier`, and the reference prompts. */
export function complexityRoutes(store: ComplexityStore) {
  return new Elysia({ name: "governance-complexity", prefix: "/complexity" })
    .get("/", () => store.view(), { ...replies({ 200: ComplexitySettings }, { summary: "Complexity tiers and reference prompts", description: "The shipped ones until a PUT replaces them." }) })
    .put(
      "/",
      async ({ body }) => {
        await store.replace(body);
        return { message: "Complexity tiers updated successfully", complexity: store.view() };
      },
      {
        body: ComplexityInput,
        ...replies({ 200: ComplexityWritten }, { summary: "Replace the complexity tiers or reference prompts", description: "A reference naming no tier is a 400; tiers given without references keep the references of the tiers kept." }),
      },
    )
    .delete(
      "/",
      async () => {
        await store.reset();
        return { message: "Complexity tiers reset to the shipped ones", complexity: store.view() };
      },
      { ...replies({ 200: ComplexityWritten }, { summary: "Reset the complexity tiers and reference prompts" }) },
    )
    .post(
      "/classify",
      ({ body }) => {
        const { tier, score, by } = classify(body.body, store.model);
        return { tier, score, by };
      },
      { body: ClassifyInput, ...replies({ 200: Classified }, { summary: "Classify a chat request body", description: "The tier and score a routing rule would read, before any conversation's floor." }) },
    );
}
