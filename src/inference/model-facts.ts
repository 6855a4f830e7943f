import { type Static, Type as t } from "@sinclair/typebox";
import type { RuntimeProvider } from "../provider-registry/runtime";
import type { Inference } from "./handle";

/** A model's list prices in USD per token (and per unit where priced so), as `/v1/models` shows them. */
const ListPrices = t.Record(t.String(), t.Unknown(), {
  description: "input_cost_per_token, output_cost_per_token, cache_read_input_token_cost, ...; `tiers`: the rates from `above_input_tokens` on",
});

/** What the price catalogue knows of a model; each field only where known. */
export const ModelFacts = t.Object({
  context_window: t.Optional(t.Integer({ minimum: 1 })),
  max_output_tokens: t.Optional(t.Integer({ minimum: 1 })),
  pricing: t.Optional(ListPrices),
});
export type ModelFacts = Static<typeof ModelFacts>;

/** A model as the OpenAI-format `/v1/models` lists it: OpenAI's fields, then the catalogue's facts. */
export const ListedModel = t.Object(
  {
    id: t.String({ description: "`provider/model`, or the bare model on a provider's own mount." }),
    object: t.Literal("model"),
    created: t.Integer({ description: "Always 0: the gateway does not know when a provider released it." }),
    owned_by: t.String({ description: "The provider serving it." }),
    ...ModelFacts.properties,
  },
  { title: "OpenAIModel" },
);
export const ModelList = t.Object({ object: t.Literal("list"), data: t.Array(ListedModel) }, { title: "OpenAIModelList", description: "The models a key here serves that the caller may use." });

/** A listing's entry with the catalogue's facts of its model added; the entry alone when nothing is known. */
export function withModelFacts<T extends object>(inference: Inference, provider: RuntimeProvider, model: string, entry: T): T & ModelFacts {
  return { ...entry, ...inference.modelFacts?.(provider, model) };
}
