import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { created, openAIProvider } from "./support";

// Models are priced from the maintained catalogue package, overrides win over it, and a model no
// catalogue knows is logged as unknown, never as free.

let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let gw: TestGateway;
let browser: Browser;

const UNLISTED = "house-model-7";

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic("sk-ant-upstream");
  gw = await startGateway({
    auth: DASHBOARD_AUTH,
    providers: {
      openai: openAIProvider(openaiUpstream, [{ id: "k1", models: ["gpt-4o-mini", UNLISTED] }]),
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream", models: ["claude-sonnet-4-5", "claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-4-5-20251001"] }], network_config: { base_url: anthropicUpstream.baseUrl } },
    },
  });
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  openaiUpstream?.stop();
  anthropicUpstream?.stop();
});

const anthropicClient = (testCase: string) =>
  new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "sk-ant-upstream", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": testCase } });

async function loggedCost(testCase: string): Promise<unknown> {
  return (await loggedRequest(gw, testCase)).cost;
}

describe("Claude Code's default models are priced from the catalogue", () => {
  for (const [model, input, output] of [
    ["claude-opus-5-5", 4e-6, 20e-6],
    ["claude-sonnet-5-5", 2e-6, 10e-6],
    ["claude-sonnet-4-5", 3e-6, 15e-6],
    // The small, fast model Claude Code uses for its side tasks.
    ["claude-haiku-4-5-20251001", 1e-6, 5e-6],
  ] as const) {
    test(`${model}: the log row's cost is its list price`, async () => {
      const reply = await anthropicClient(`cc-${model}`).messages.create({ model, max_tokens: 64, messages: [{ role: "user", content: "hello there" }] });
      const { input_tokens, output_tokens } = reply.usage;
      expect(await loggedCost(`cc-${model}`)).toBeCloseTo(input_tokens * input + output_tokens * output, 15);
    });
  }

  test("an override beats the catalogue's price", async () => {
    await created(gw, "/api/governance/pricing-overrides", { name: "negotiated sonnet", scope_kind: "provider", scope_id: "anthropic", pattern: "claude-sonnet-4-5", patch: { input_cost_per_token: 1e-3, output_cost_per_token: 2e-3 } });
    const reply = await anthropicClient("cc-overridden").messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hello there" }] });
    expect(await loggedCost("cc-overridden")).toBeCloseTo(reply.usage.input_tokens * 1e-3 + reply.usage.output_tokens * 2e-3, 12);
  });
});

describe("a model no catalogue knows", () => {
  test("its log row's cost is unknown (null), not 0, in the API and on the logs page", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "unlisted" } });
    await client.chat.completions.create({ model: `openai/${UNLISTED}`, messages: [{ role: "user", content: "one two three" }] });
    const row = await loggedRequest(gw, "unlisted");
    expect(row).toMatchObject({ model: UNLISTED, status: "success", cost: null });

    const { page, problems } = await browser.open(`${gw.url}/ui/logs`);
    await signIn(page);
    const logged = page.getByRole("table", { name: "Request logs" }).getByRole("row").filter({ hasText: UNLISTED });
    await logged.getByRole("cell", { name: "unknown", exact: true }).waitFor();
    expect(problems()).toEqual([]);
  }, 30_000);
});

describe("/v1/models", () => {
  test("(and Anthropic's) carries each model's context window, output limit and list prices where the catalogue knows them", async () => {
    const models = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused" }).models.list();
    const byId = Object.fromEntries(models.data.map((model) => [model.id, model as unknown as Record<string, unknown>]));
    expect(byId["anthropic/claude-sonnet-4-5"]).toMatchObject({
      context_window: 200_000,
      max_output_tokens: 64_000,
      pricing: { input_cost_per_token: 3e-6, output_cost_per_token: 15e-6, cache_read_input_token_cost: 0.3e-6, cache_creation_input_token_cost: 3.75e-6 },
    });
    expect(byId["openai/gpt-4o-mini"]).toMatchObject({ context_window: 128_000, pricing: { input_cost_per_token: 0.15e-6, output_cost_per_token: 0.6e-6 } });
    expect(byId[`openai/${UNLISTED}`]).toEqual({ id: `openai/${UNLISTED}`, object: "model", created: 0, owned_by: "openai" });

    const one = (await (await fetch(`${gw.url}/v1/models/anthropic/claude-sonnet-4-5`)).json()) as Record<string, unknown>;
    expect(one).toMatchObject({ id: "anthropic/claude-sonnet-4-5", context_window: 200_000 });

    const anthropicListing = await anthropicClient("listing").models.list();
    expect(anthropicListing.data.find((model) => model.id === "anthropic/claude-sonnet-4-5")).toMatchObject({ context_window: 200_000, pricing: { input_cost_per_token: 3e-6 } });
  });

  test("the Gemini mount's models.list and models.get carry the token limits under Gemini's names", async () => {
    const genai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai` } });
    const listed = [];
    for await (const model of await genai.models.list()) listed.push(model);
    expect(listed.find((model) => model.name === "models/anthropic/claude-sonnet-4-5")).toMatchObject({ inputTokenLimit: 200_000, outputTokenLimit: 64_000 });
    const unlisted = listed.find((model) => model.name === `models/openai/${UNLISTED}`);
    expect(unlisted).toBeDefined();
    expect(unlisted).not.toHaveProperty("inputTokenLimit");
    expect(await genai.models.get({ model: "openai/gpt-4o-mini" })).toMatchObject({ inputTokenLimit: 128_000 });
  });
});
