import { expect, test } from "bun:test";
import { Glob } from "bun";
import { catalogPrice } from "../../src/governance/pricing/catalog";

// Every real model the test suite sends to a mock provider has a price, so the costs its calls log
// are not missing. The names are read from the tests' `model: "..."` fields; names made up for a
// test (routing rules, aliases, local servers) are left out by keeping only the families below.

const TEST_DIR = `${import.meta.dir}/..`;

/** Model families providers publish, by their ids' beginnings: a name outside them is one a test made up. */
const PUBLISHED = /^(gpt-|o\d(-|$)|chatgpt-|text-embedding-|dall-e-|tts-|whisper-|sora-|claude-|gemini-|imagen-|veo-|command|embed-|mistral-|codestral|grok-|amazon\.|anthropic\.|meta\.|(us|eu|global)\.anthropic\.)/;

/** Published names the suite uses on purpose without a price, and why. */
const UNPRICED: Readonly<Record<string, string>> = {
  "gemini-9-ultra": "a model no provider has, to show an unknown model's reply",
  "claude-future-9": "a model no catalogue knows, to show the output cap an unknown model gets",
  "text-embedding-005": "Vertex prices it by the character of text, which the embedding reply does not report",
  "rerank-v3.5": "Cohere prices reranking by the search, not by the token",
  "omni-moderation-latest": "moderation is free",
  "gemini-embedding-style": "a custom provider's model named like Gemini's",
  "gpt-3": "a retired model, listed to show it as retired",
};

const FAMILIES = ["openai", "azure", "anthropic", "gemini", "vertex", "bedrock", "cohere", "mistral", "groq", "xai", "cerebras", "perplexity"];

async function modelsTheTestsSend(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const file of new Glob("**/*.ts").scanSync(TEST_DIR)) {
    const text = await Bun.file(`${TEST_DIR}/${file}`).text();
    for (const [, name] of text.matchAll(/\bmodel:\s*["'`]([^"'`$]+)["'`]/g)) names.add(name!);
  }
  return names;
}

/** `openai/gpt-4o` is priced as that family's; a bare name, or one behind a custom provider's name, as any family's that lists it. */
function priced(name: string): boolean {
  const [prefix, ...rest] = name.split("/");
  if (rest.length && FAMILIES.includes(prefix!)) return catalogPrice(prefix!, rest.join("/")) !== undefined;
  return FAMILIES.some((family) => catalogPrice(family, modelOf(name)) !== undefined);
}

const modelOf = (name: string) => name.split("/").at(-1)!;

test("every published model the test suite calls has a price", async () => {
  const sent = [...(await modelsTheTestsSend())].filter((name) => PUBLISHED.test(modelOf(name)) && !UNPRICED[modelOf(name)]);
  expect(sent.length).toBeGreaterThan(50);
  expect(sent.filter((name) => !priced(name))).toEqual([]);
});

test.each([
  ["nebius", "Qwen/Qwen3-235B-A22B-Instruct-2507"],
  ["voyage", "voyage-3"],
  ["moonshot", "kimi-k2-0905-preview"],
  ["together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"],
  ["novita", "deepseek/deepseek-r1"],
])("%s, listed by the catalogue under its own name or another, prices %s", (family, model) => {
  expect(catalogPrice(family, model)?.input_cost_per_token).toBeGreaterThan(0);
});
