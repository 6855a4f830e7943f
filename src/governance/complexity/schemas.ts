import { type Static, Type as t } from "@sinclair/typebox";
import { ComplexityReference } from "../../db/schema/types";
import { Message } from "../../http/replies";

const TierName = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.-]+$" });

export const ComplexityInput = t.Object(
  {
    tiers: t.Optional(t.Array(TierName, { minItems: 2, maxItems: 8, description: "The tiers, lowest first: tier i of n holds scores from i/n up to (i + 1)/n." })),
    references: t.Optional(t.Array(ComplexityReference, { maxItems: 2_000, description: "Labelled prompts that place a request the cheap signals leave undecided; replaces the whole set." })),
    classifier_model: t.Optional(
      t.Union([t.String({ pattern: "^[^/]+/.+$", maxLength: 300 }), t.Null()], { description: "`provider/model` asked for the tier, last, when neither the signals nor a reference place a request; null for none." }),
    ),
  },
  { additionalProperties: false },
);
export type ComplexityInput = Static<typeof ComplexityInput>;

export const ComplexitySettings = t.Object({
  tiers: t.Array(t.String()),
  references: t.Array(ComplexityReference),
  classifier_model: t.Union([t.String(), t.Null()]),
  customized: t.Boolean({ description: "false while the shipped tiers and references are in force." }),
  updated_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
});
export const ComplexityWritten = t.Object({ message: Message, complexity: ComplexitySettings });

export const ClassifyInput = t.Object({ body: t.Record(t.String(), t.Unknown(), { description: "A chat request body in any format (OpenAI, Anthropic, Gemini, Responses)." }) });
export const Classified = t.Object({
  tier: t.String(),
  score: t.Number({ minimum: 0, maximum: 1 }),
  by: t.Union([t.Literal("signals"), t.Literal("references")], { description: "What placed it: the cheap signals, or the nearest reference prompts (the classifier model is not asked here)." }),
});
