import { type ConditionalPrice, findProvider, type MatchLogic, type ModelInfo, type ModelPrice as ListedPrice, type Provider } from "@pydantic/genai-prices";
import type { ModelPrice, PriceTier } from "./cost";

/** What the maintained catalogue says of one model: its prices, and its context window where known. */
export interface CatalogueModel {
  price: ModelPrice;
  context_window?: number;
}

/**
 * The catalogue's provider for a gateway family whose name differs; every other family goes by its
 * own name. Nebius names its models by their Hugging Face ids, and the catalogue lists its prices
 * as Hugging Face's router passes them on.
 */
const CATALOGUE_PROVIDER: Readonly<Record<string, string>> = { gemini: "google", vertex: "google", bedrock: "aws", xai: "x-ai", voyage: "voyageai", moonshot: "moonshotai", nebius: "huggingface_nebius" };

/** The catalogue's rates, USD per million tokens (or thousand requests), as the gateway's per-token fields. */
const PER_MILLION: Readonly<Record<string, keyof ModelPrice>> = {
  input_mtok: "input_cost_per_token",
  output_mtok: "output_cost_per_token",
  cache_read_mtok: "cache_read_input_token_cost",
  cache_write_mtok: "cache_creation_input_token_cost",
  cache_write_1h_mtok: "cache_creation_1h_input_token_cost",
  output_reasoning_mtok: "output_cost_per_reasoning_token",
  input_audio_mtok: "input_cost_per_audio_token",
  cache_audio_read_mtok: "cache_read_input_audio_token_cost",
  output_audio_mtok: "output_cost_per_audio_token",
};

type Rates = Partial<Record<keyof ModelPrice, number>>;

/** USD per million as USD per one, without the float noise of the division (0.2 / 1e6 is 2.0000000000000002e-7). */
const perToken = (perMillion: number) => Number((perMillion / 1e6).toPrecision(12));

/** Each catalogue pattern compiled once: a name the index misses is tried against many. */
const compiled = new Map<string, RegExp>();
const regexOf = (source: string) => compiled.get(source) ?? compiled.set(source, new RegExp(source)).get(source)!;

function matches(logic: MatchLogic, name: string): boolean {
  if ("equals" in logic) return name === logic.equals;
  if ("starts_with" in logic) return name.startsWith(logic.starts_with);
  if ("ends_with" in logic) return name.endsWith(logic.ends_with);
  if ("contains" in logic) return name.includes(logic.contains);
  if ("regex" in logic) return regexOf(logic.regex).test(name);
  if ("or" in logic) return logic.or.some((inner) => matches(inner, name));
  return logic.and.every((inner) => matches(inner, name));
}

/** The names a clause accepts exactly, for the index; a clause that accepts a pattern adds none. */
function exactNames(logic: MatchLogic): string[] {
  if ("equals" in logic) return [logic.equals];
  if ("or" in logic) return logic.or.flatMap(exactNames);
  return [];
}

/** The prices in force now: time-of-day discounts are left out, dated changes apply from their date. */
function currentPrices(prices: ConditionalPrice[] | ListedPrice, now: number): ListedPrice {
  if (!Array.isArray(prices)) return prices;
  const dated = prices.filter(({ constraint }) => !constraint || (constraint.type === "start_date" && Date.parse(constraint.start_date) <= now));
  return (dated.at(-1) ?? prices[0]!).prices;
}

/** A catalogue entry as the gateway's prices: flat base rates, and the long-context tiers as whole price lists. */
export function toModelPrice(listed: ListedPrice): ModelPrice | undefined {
  const base: Rates = {};
  const starts = new Set<number>();
  for (const [unit, value] of Object.entries(listed)) {
    if (unit === "requests_kcount" && typeof value === "number") base.cost_per_request = value / 1_000;
    // Speech heard (whisper and its kin) is listed by the hour; the gateway bills it by the second.
    if ((unit === "audio_hours" || unit === "input_audio_hours") && typeof value === "number") base.input_cost_per_second = Number((value / 3_600).toPrecision(12));
    const field = PER_MILLION[unit];
    if (!field || value === undefined) continue;
    if (typeof value === "number") base[field] = perToken(value);
    else {
      base[field] = perToken(value.base);
      for (const tier of value.tiers) starts.add(tier.start);
    }
  }
  if (Object.keys(base).length === 0) return undefined;
  const flat = { input_cost_per_token: 0, output_cost_per_token: 0, ...base } as ModelPrice;
  const tiers = [...starts].sort((a, b) => a - b).map((start) => ({ above_input_tokens: start, ...tierRates(listed, start) }) as PriceTier);
  return tiers.length ? { ...flat, tiers } : flat;
}

/** Each tiered rate at the highest of its tiers that starts at or below `start`. */
function tierRates(listed: ListedPrice, start: number): Rates {
  const rates: Rates = {};
  for (const [unit, value] of Object.entries(listed)) {
    const field = PER_MILLION[unit];
    if (!field || value === undefined || typeof value === "number") continue;
    const reached = value.tiers.filter((tier) => tier.start <= start).at(-1);
    if (reached) rates[field] = perToken(reached.price);
  }
  return rates;
}

/** One catalogue provider, indexed: exact names in a map, the pattern clauses tried in order on a miss. */
class ProviderIndex {
  private readonly exact = new Map<string, CatalogueModel>();
  private readonly patterned: Array<{ match: MatchLogic; model: CatalogueModel }> = [];

  constructor(models: readonly ModelInfo[], now: number) {
    for (const info of models) {
      const price = toModelPrice(currentPrices(info.prices, now));
      if (!price) continue;
      const model: CatalogueModel = info.context_window ? { price, context_window: info.context_window } : { price };
      for (const name of [info.id, ...exactNames(info.match)]) if (!this.exact.has(name)) this.exact.set(name, model);
      this.patterned.push({ match: info.match, model });
    }
  }

  find(name: string): CatalogueModel | undefined {
    return this.exact.get(name) ?? this.patterned.find(({ match }) => matches(match, name))?.model;
  }
}

const indexes = new Map<string, ProviderIndex | null>();

function indexOf(providerId: string): ProviderIndex | null {
  let index = indexes.get(providerId);
  if (index === undefined) {
    const provider: Provider | undefined = findProvider({ providerId });
    indexes.set(providerId, (index = provider ? new ProviderIndex(provider.models, Date.now()) : null));
  }
  return index;
}

/** The catalogue providers that price a family's models: its own, then those it resells (Azure: OpenAI's, Vertex: Anthropic's). */
function providersOf(family: string): string[] {
  const own = CATALOGUE_PROVIDER[family] ?? family;
  const provider = findProvider({ providerId: own });
  return provider ? [provider.id, ...(provider.fallback_model_providers ?? [])] : [];
}

/** Builds the indexes of the catalogue providers that price `families`, so no request pays for it. */
export function indexCatalogue(families: readonly string[]): void {
  for (const family of families) for (const providerId of providersOf(family)) indexOf(providerId);
}

/** What the maintained catalogue says of `model` served by a provider of `family`; undefined when it does not list it. */
export function maintainedModel(family: string, model: string): CatalogueModel | undefined {
  for (const providerId of providersOf(family)) {
    const found = indexOf(providerId)?.find(model);
    if (found) return found;
  }
  return undefined;
}
