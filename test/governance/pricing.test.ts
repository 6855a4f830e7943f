import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { catalogPrice } from "../../src/governance/pricing/catalog";
import { costOf } from "../../src/governance/pricing/cost";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let gw: TestGateway;

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic("sk-ant-upstream");
  gw = await startGateway({
    providers: {
      openai: openAIProvider(openaiUpstream),
      groq: openAIProvider(openaiUpstream, [{ id: "g1" }]),
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream" }], network_config: { base_url: anthropicUpstream.baseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  anthropicUpstream.stop();
});

/** What the key's one budget has been charged so far. */
async function spentBy(keyId: string): Promise<number> {
  const { budgets } = (await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
  return budgets.find((budget) => budget.owner_id === keyId)!.current_usage;
}

const budgeted = (name: string) => createVirtualKey(gw, { name, budgets: [{ max_limit: 1000, reset_duration: "1d" }] });

describe("the shipped catalogue", () => {
  test("covers the common models of every supported family", () => {
    for (const [family, model] of [
      ["openai", "gpt-4o"],
      ["azure", "gpt-4o-mini"],
      ["anthropic", "claude-sonnet-4-20250514"],
      ["gemini", "gemini-2.5-flash"],
      ["vertex", "gemini-2.5-pro"],
      ["bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"],
      ["cohere", "command-r-plus-08-2024"],
      ["mistral", "mistral-large-latest"],
      ["groq", "llama-3.3-70b-versatile"],
      ["xai", "grok-3"],
    ]) {
      const price = structuredClone(catalogPrice(family!, model!));
      expect({ family, model, price }).toMatchObject({ price: { input_cost_per_token: expect.any(Number), output_cost_per_token: expect.any(Number) } });
    }
  });

  test("dated and versioned ids find their model; a different model is not mistaken for a shorter name", () => {
    expect(catalogPrice("openai", "gpt-4o-mini-2024-07-18")).toEqual(catalogPrice("openai", "gpt-4o-mini")!);
    expect(catalogPrice("openai", "gpt-4o-2024-08-06")!.input_cost_per_token).toBe(2.5e-6);
    expect(catalogPrice("bedrock", "us.anthropic.claude-3-5-haiku-20241022-v1:0")!.input_cost_per_token).toBe(0.8e-6);
    expect(catalogPrice("vertex", "claude-3-5-sonnet-v2@20241022")!.output_cost_per_token).toBe(15e-6);
    // GPT-4.5 is priced as itself ($75/M in the catalogue), not as the shorter gpt-4 ($30/M).
    expect(catalogPrice("openai", "gpt-4.5-preview")!.input_cost_per_token).toBe(75e-6);
    expect(catalogPrice("openai", "no-such-model")).toBeUndefined();
  });

  test("cache reads, cache writes and reasoning are priced apart from plain tokens", () => {
    const sonnet = catalogPrice("anthropic", "claude-3-5-sonnet-20241022")!;
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 200 } };
    // 300 plain input at $3/M, 600 read at $0.30/M, 100 written at $3.75/M, 300 plain output and 200 reasoning at $15/M.
    expect(costOf({ usage }, sonnet)).toBeCloseTo(300 * 3e-6 + 600 * 0.3e-6 + 100 * 3.75e-6 + 300 * 15e-6 + 200 * 15e-6, 12);
    expect(costOf({ usage }, { ...sonnet, output_cost_per_reasoning_token: 1e-6 })).toBeCloseTo(300 * 3e-6 + 600 * 0.3e-6 + 100 * 3.75e-6 + 300 * 15e-6 + 200 * 1e-6, 12);
  });
});

describe("the maintained catalogue's special prices", () => {
  test("a prompt past a long-context tier is billed at that tier's rates, the whole request", () => {
    const pro = catalogPrice("gemini", "gemini-2.5-pro")!;
    const reply = (prompt: number) => ({ usage: { prompt_tokens: prompt, completion_tokens: 1000, total_tokens: prompt + 1000 } });
    // $1.25/M in and $10/M out up to 200k prompt tokens; $2.50/M and $15/M past them.
    expect(costOf(reply(200_000), pro)).toBeCloseTo(200_000 * 1.25e-6 + 1000 * 10e-6, 12);
    expect(costOf(reply(200_001), pro)).toBeCloseTo(200_001 * 2.5e-6 + 1000 * 15e-6, 12);
  });

  test("one-hour cache writes at their own rate, and a per-request fee on every request", () => {
    const sonnet = catalogPrice("anthropic", "claude-sonnet-4-5")!;
    const usage = { prompt_tokens: 110, completion_tokens: 0, total_tokens: 110, prompt_tokens_details: { cache_write_tokens: 100, cache_write_1h_tokens: 40 } };
    // 10 plain at $3/M, 60 five-minute writes at $3.75/M, 40 one-hour writes at $6/M.
    expect(costOf({ usage }, sonnet)).toBeCloseTo(10 * 3e-6 + 60 * 3.75e-6 + 40 * 6e-6, 12);
    const sonar = catalogPrice("perplexity", "sonar")!;
    // $1/M either way, and $12 per thousand requests.
    expect(costOf({ usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }, sonar)).toBeCloseTo(15 * 1e-6 + 0.012, 12);
  });
});

describe("the cost of every request, from its usage", () => {
  test("an OpenAI chat at gpt-4o-mini's list price", async () => {
    const key = await budgeted("list-price");
    expect((await chat(gw, key.value)).status).toBe(200);
    // "one two three": 3 prompt tokens at $0.15/M, "echo: one two three": 4 completion tokens at $0.60/M.
    expect(await spentBy(key.id)).toBeCloseTo(3 * 0.15e-6 + 4 * 0.6e-6, 15);
  });

  test("Anthropic messages with a cache write, then a cache read", async () => {
    const key = await budgeted("cached-prompt");
    const client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: key.value, maxRetries: 0 });
    const system = [{ type: "text" as const, text: "You are a careful assistant with a long shared prompt", cache_control: { type: "ephemeral" as const } }];
    const ask = () => client.messages.create({ model: "claude-3-5-sonnet-20241022", max_tokens: 64, system, messages: [{ role: "user", content: "hi there" }] });
    const first = await ask();
    expect(first.usage).toMatchObject({ input_tokens: 2, cache_creation_input_tokens: 10, cache_read_input_tokens: 0, output_tokens: 3 });
    // 2 input at $3/M, 10 written to the cache at $3.75/M, 3 output at $15/M.
    const firstCost = 2 * 3e-6 + 10 * 3.75e-6 + 3 * 15e-6;
    expect(await spentBy(key.id)).toBeCloseTo(firstCost, 15);
    const second = await ask();
    expect(second.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 10 });
    // The same, with the 10 cached tokens read at $0.30/M.
    expect(await spentBy(key.id)).toBeCloseTo(firstCost + 2 * 3e-6 + 10 * 0.3e-6 + 3 * 15e-6, 15);
  });
});

describe("pricing overrides win over the catalogue", () => {
  test("CRUD, and the most specific override prices the request", async () => {
    const key = await budgeted("overridden");
    const cost = async () => {
      const before = await spentBy(key.id);
      expect((await chat(gw, key.value)).status).toBe(200);
      return (await spentBy(key.id)) - before;
    };
    const { pricing_override: global } = await created(gw, "/api/governance/pricing-overrides", { name: "all mini", pattern: "gpt-4o-mini", patch: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 } });
    expect(global).toMatchObject({ scope_kind: "global", match_type: "exact", pattern: "gpt-4o-mini" });
    expect(await cost()).toBeCloseTo(3 * 0.001 + 4 * 0.002, 12);

    await created(gw, "/api/governance/pricing-overrides", { name: "openai gpt-4o family", scope_kind: "provider", scope_id: "openai", pattern: "gpt-4o*", patch: { output_cost_per_token: 0.01 } });
    // A provider's override is more specific than a global one; the input price it leaves out comes from the catalogue.
    expect(await cost()).toBeCloseTo(3 * 0.15e-6 + 4 * 0.01, 12);

    const { pricing_override: mine } = await created(gw, "/api/governance/pricing-overrides", { name: "negotiated", scope_kind: "virtual_key", scope_id: key.id, pattern: "gpt-4o-mini", patch: { input_cost_per_token: 0.1, output_cost_per_token: 0 } });
    expect(await cost()).toBeCloseTo(3 * 0.1, 12);

    const updated = await gw.admin(`/api/governance/pricing-overrides/${mine.id}`, { method: "PUT", json: { request_types: ["embedding"] } });
    expect(((await updated.json()) as { pricing_override: { request_types: string[] } }).pricing_override.request_types).toEqual(["embedding"]);
    expect(await cost()).toBeCloseTo(3 * 0.15e-6 + 4 * 0.01, 12);

    const listed = (await (await gw.admin("/api/governance/pricing-overrides?search=negotiated")).json()) as { pricing_overrides: unknown[]; total_count: number };
    expect(listed.total_count).toBe(1);
    expect(await (await gw.admin(`/api/governance/pricing-overrides/${mine.id}`, { method: "DELETE" })).json()).toEqual({ message: "Pricing override deleted successfully" });
    await expectGatewayError(await gw.admin(`/api/governance/pricing-overrides/${mine.id}`), 404);
  });

  test("an override's scope must exist", async () => {
    const response = await gw.admin("/api/governance/pricing-overrides", { method: "POST", json: { name: "ghost", scope_kind: "provider_key", scope_id: "no-such-key", pattern: "x", patch: {} } });
    await expectGatewayError(response, 400, { param: "scope_id" });
  });
});
