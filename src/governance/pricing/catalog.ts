import shipped from "./catalog.json" with { type: "json" };
import type { ModelPrice } from "./cost";

/** A model's list prices, and the most output tokens it writes in one reply where that is known. */
type CatalogEntry = ModelPrice & { max_output_tokens?: number };

type Section = Readonly<Record<string, CatalogEntry>>;

function deepFrozen<T>(value: T): T {
  if (value && typeof value === "object") for (const inner of Object.values(value)) deepFrozen(inner);
  return Object.freeze(value);
}

/** Frozen: every request reads these objects, none may change them. */
const CATALOG: Readonly<Record<string, Section>> = deepFrozen(shipped);

/** Families that serve another family's models at the same list prices. */
const SHARED_PRICES: Readonly<Record<string, readonly string[]>> = { azure: ["openai"], vertex: ["gemini", "anthropic"] };

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

function search(family: string, model: string): CatalogEntry | null {
  const name = model.replace(REGION_PROFILE, "");
  for (const section of [family, ...(SHARED_PRICES[family] ?? [])]) {
    const price = lookup(section, name);
    if (price) return price;
  }
  return null;
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
