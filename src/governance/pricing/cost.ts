import type { BilledUnits } from "../../inference/billed-units";
import type { Usage } from "../../inference/canonical";
import type { PricePatch } from "../../db/schema/types";

/** Prices the maintained catalogue describes beyond what an override can set. */
type CatalogueRates = {
  /** A one-hour cache write (Anthropic's `ttl: "1h"`); a five-minute one costs `cache_creation_input_token_cost`. */
  cache_creation_1h_input_token_cost?: number;
  /** A fee for each request, whatever its tokens. */
  cost_per_request?: number;
};

/** The rates that replace the base ones once a prompt passes `above_input_tokens` (long-context prices). */
export type PriceTier = { above_input_tokens: number } & Partial<Omit<PricePatch, "output_cost_per_image" | "input_cost_per_character" | "input_cost_per_second" | "output_cost_per_second">> & CatalogueRates;

/** USD per token for one model. Missing cache and reasoning prices fall back to input and output. */
export type ModelPrice = Required<Pick<PricePatch, "input_cost_per_token" | "output_cost_per_token">> &
  PricePatch &
  CatalogueRates & {
    /** Ascending; the last one a prompt passes applies to the whole request, as providers bill long contexts. */
    tiers?: readonly PriceTier[];
  };

/** What a reply is billed for: its tokens, and the units of what is priced by the unit. */
export interface Billed {
  usage?: Usage;
  units?: BilledUnits;
}

/**
 * The cost of a reply. Canonical usage counts cache reads, cache writes and audio inside
 * `prompt_tokens`, and reasoning and audio inside `completion_tokens` (OpenAI's convention), so
 * each is taken out of the plain count and priced at its own rate; cached audio at the cached
 * audio rate where the model has one, else as a cache read. Units (images, characters, seconds) are priced at their own rates, where the model
 * has them.
 */
export function costOf({ usage, units }: Billed, price: ModelPrice): number {
  const rated = usage ? atPromptLength(price, usage.prompt_tokens) : price;
  return (usage ? tokenCostOf(usage, rated) : 0) + (units ? unitCostOf(units, rated) : 0) + (price.cost_per_request ?? 0);
}

/** The price with the rates of the longest-context tier the prompt passes laid over the base ones. */
function atPromptLength(price: ModelPrice, promptTokens: number): ModelPrice {
  const tier = price.tiers?.findLast((candidate) => promptTokens > candidate.above_input_tokens);
  if (!tier) return price;
  const { above_input_tokens: _, ...rates } = tier;
  return { ...price, ...rates };
}

function unitCostOf(units: BilledUnits, price: ModelPrice): number {
  return (
    (units.images ?? 0) * (price.output_cost_per_image ?? 0) +
    (units.characters ?? 0) * (price.input_cost_per_character ?? 0) +
    (units.audioSeconds ?? 0) * (price.input_cost_per_second ?? 0) +
    (units.videoSeconds ?? 0) * (price.output_cost_per_second ?? 0)
  );
}

function tokenCostOf(usage: Usage, price: ModelPrice): number {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  // One-hour writes are counted among the cache writes too.
  const cacheWrite1h = Math.min(usage.prompt_tokens_details?.cache_write_1h_tokens ?? 0, cacheWrite);
  const audio = usage.prompt_tokens_details?.audio_tokens ?? 0;
  // Cached audio is in both the cached and the audio count: it is priced once, as a cached read of audio.
  const cachedAudio = Math.min(usage.prompt_tokens_details?.cached_audio_tokens ?? 0, audio, cacheRead);
  const audioIn = audio - cachedAudio;
  const cachedText = cacheRead - cachedAudio;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const audioOut = usage.completion_tokens_details?.audio_tokens ?? 0;
  const plainInput = Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite - audioIn);
  const plainOutput = Math.max(0, usage.completion_tokens - reasoning - audioOut);
  const input = price.input_cost_per_token;
  const output = price.output_cost_per_token;
  return (
    plainInput * input +
    cachedText * (price.cache_read_input_token_cost ?? input) +
    cachedAudio * (price.cache_read_input_audio_token_cost ?? price.cache_read_input_token_cost ?? input) +
    (cacheWrite - cacheWrite1h) * (price.cache_creation_input_token_cost ?? input) +
    cacheWrite1h * (price.cache_creation_1h_input_token_cost ?? price.cache_creation_input_token_cost ?? input) +
    audioIn * (price.input_cost_per_audio_token ?? input) +
    plainOutput * output +
    reasoning * (price.output_cost_per_reasoning_token ?? output) +
    audioOut * (price.output_cost_per_audio_token ?? output)
  );
}
