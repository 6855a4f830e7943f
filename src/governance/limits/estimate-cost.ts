import { textAndMedia } from "../../inference/inline-media";
import { costOf, type ModelPrice } from "../pricing/cost";
import { NOT_TEXT } from "./estimate-usage";

/**
 * Input tokens by length, a token to every three characters of the request's text (English and
 * code run nearer four): the tokenizer took ~280 ms of the event loop for a 155 KB request, which
 * admission cannot spend, and a reservation is settled against the real count anyway.
 */
const CHARACTERS_PER_TOKEN = 3;

export function inputTokensOf(body: Record<string, unknown>): number {
  let characters = 0;
  for (const text of textAndMedia(body, NOT_TEXT).texts) characters += text.length;
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

/** Where each wire format puts the most output tokens a call may write. */
const OUTPUT_CAPS: ReadonlyArray<readonly string[]> = [
  ["max_completion_tokens"],
  ["max_tokens"],
  ["max_output_tokens"],
  ["generationConfig", "maxOutputTokens"],
  ["inferenceConfig", "maxTokens"],
];

function numberAt(body: Record<string, unknown>, path: readonly string[]): number | undefined {
  let value: unknown = body;
  for (const key of path) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The output cap the request sets, in whichever format it came. */
export function requestedOutputCap(body: Record<string, unknown>): number | undefined {
  for (const path of OUTPUT_CAPS) {
    const cap = numberAt(body, path);
    if (cap !== undefined) return cap;
  }
  return undefined;
}

/**
 * The most a call should cost: its input tokens, and the output it allows (its own cap, else the
 * model's most output in one reply where the catalogue knows it), at the model's token prices.
 * Reserved on budgets at admission and settled against the real cost after the reply.
 */
export function estimatedCost(body: Record<string, unknown>, price: ModelPrice, modelOutputLimit: number | undefined): number {
  const input = inputTokensOf(body);
  const output = requestedOutputCap(body) ?? modelOutputLimit ?? 0;
  return costOf({ usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } }, price);
}
