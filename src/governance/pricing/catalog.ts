import shipped from "./catalog.json" with { type: "json" };
import type { ModelPrice } from "./cost";
import { indexCatalogue, maintainedModel } from "./maintained";

/** A model's list prices, its context window and the most output tokens it writes in one reply, where each is known. */
export type CatalogEntry = ModelPrice & { max_output_tokens?: number; context_window?: number };

type Section = Readonly<Record<string, CatalogEntry>>;

function deepFrozen<T>(value: T): T {
  if (value && typeof value === "object") for (const inner of Object.values(value)) deepFrozen(inner);
  return Object.freeze(value);
}

/** The gateway's own list (catalog.json): prices by the unit, output limits, and models the maintained catalogue lacks. Frozen: every request reads these objects, none may change them. */
const CATALOG: Readonly<Record<string, Section>> = deepFrozen(shipped);

/** Families that serve another family's models at the same list prices. */
const SHARED_PRICES: Readonly<Record<string, readonly string[]>> = { azure: ["openai"], vertex: ["gemini", "anthropic"] };

indexCatalogue([...Object.keys(CATALOG), ...Object.keys(SHARED_PRICES)]);

/** Bedrock's cross-region inference profiles (`us.anthropic...`) cost what the model costs. */
const REGION_PROFILE = /^(us|eu|apac|au|ca|jp|us-gov|global)\./;

/** What may follow a catalogue name in a dated or versioned id: `gpt-4o-2024-08-06`, `...-v1:0`, `claude-...@2024`. */
const VERSION_SEPARATORS = new Set(["-", ":", "@"]);

/** Each section's names, longest first, so `gpt-4o-mini-2024-07-18` finds `gpt-4o-mini` before `gpt-4o`. */
const NAMES_LONGEST_FIRST = Object.fromEntries(Object.entries(CATALOG).map(([family, section]) => [family, Object.keys(section).sort((a, b) => b.length - a.length)]));

function lookup(family: string, model: string): CatalogEntry | undefined {
  const section = CATALOG[family];
  if (!section) return undefined;
  if (Object.hasOwn(section, model)) return section[model];
  const name = NAMES_LONGEST_FIRST[family]!.find((candidate) => model.startsWith(candidate) && VERSION_SEPARATORS.has(model.charAt(candidate.length)));
  return name ? section[name] : undefined;
}

function searchShipped(family: string, name: string): CatalogEntry | undefined {
  for (const section of [family, ...(SHARED_PRICES[family] ?? [])]) {
    const price = lookup(section, name);
    if (price) return price;
  }
  return undefined;
}

/** What the gateway's own list adds to the maintained catalogue's token prices: what is priced by the unit, and the output limit. */
const UNIT_FIELDS = ["output_cost_per_image", "input_cost_per_character", "input_cost_per_second", "output_cost_per_second", "max_output_tokens"] as const;

function unitPricesOf(entry: CatalogEntry | undefined): Partial<CatalogEntry> {
  return entry ? Object.fromEntries(UNIT_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]])) : {};
}

/** The maintained catalogue first, by the id as sent and without its region profile; the gateway's own list where it says nothing. */
function search(family: string, model: string): CatalogEntry | null {
  const name = model.replace(REGION_PROFILE, "");
  const shipped = searchShipped(family, name);
  const maintained = maintainedModel(family, model) ?? (name === model ? undefined : maintainedModel(family, name));
  if (!maintained) return shipped ?? null;
  return deepFrozen({ ...maintained.price, ...unitPricesOf(shipped), ...(maintained.context_window ? { context_window: maintained.context_window } : {}) });
}

/** Every priced reply looks its model up: answers are remembered, for a bounded number of names (clients choose them). */
const REMEMBERED = 2_048;
const remembered = new Map<string, CatalogEntry | null>();

/** The shipped list price of a model served by a provider of `family`; undefined when unknown. */
export function catalogPrice(family: string, model: string): CatalogEntry | undefined {
  const key = `${family}/${model}`;
  let price = remembered.get(key);
  if (price === undefined) {
    if (remembered.size >= REMEMBERED) remembered.clear();
    remembered.set(key, (price = search(family, model)));
  }
  return price ?? undefined;
}

/** The most output tokens a model served by a provider of `family` writes in one reply, where the catalogue knows it. */
export const catalogOutputLimit = (family: string, model: string): number | undefined => catalogPrice(family, model)?.max_output_tokens;

/** A model's context window, output limit and list prices, for model listings; undefined when the catalogue does not know it. */
export function catalogFacts(family: string, model: string): { context_window?: number; max_output_tokens?: number; pricing: ModelPrice } | undefined {
  const entry = catalogPrice(family, model);
  if (!entry) return undefined;
  const { context_window, max_output_tokens, ...pricing } = entry;
  return { ...(context_window ? { context_window } : {}), ...(max_output_tokens ? { max_output_tokens } : {}), pricing };
}
