import { formatCost, formatCount } from "./format";

/** What the price catalogue knows of a model, as `/v1/models` and the playground's model list answer it. */
export interface ModelFactsShown {
  context_window?: number;
  pricing?: Record<string, unknown>;
}

const perMillion = (pricing: Record<string, unknown> | undefined, field: string) => {
  const value = pricing?.[field];
  return typeof value === "number" ? formatCost(value * 1_000_000) : undefined;
};

/** "$0.15 in, $0.60 out per 1M tokens · 128K tokens of context", each part only where known; empty when nothing is. */
export function modelFactsLine({ context_window, pricing }: ModelFactsShown): string {
  const input = perMillion(pricing, "input_cost_per_token");
  const output = perMillion(pricing, "output_cost_per_token");
  const prices = input && output ? `${input} in, ${output} out per 1M tokens` : undefined;
  const context = context_window ? `${formatCount(context_window)} tokens of context` : undefined;
  return [prices, context].filter(Boolean).join(" · ");
}
