import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formatCost, formatCount, formatLatency } from "../../src/ui/lib/format";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The Playground as an operator uses it: a prompt run as a virtual key against two models side by
 * side, both answers streamed, each one's figures those of its log row; tools and images sent as
 * typed; the request shown as code exactly as it was sent.
 */
let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
let keyId: string;

type Json = Record<string, any>;

const OPENAI_MODEL = "openai/gpt-4o-mini";
const CLAUDE_MODEL = "anthropic/claude-haiku-4-5-20251001";
// A 1×1 PNG.
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  openai = startMockOpenAI();
  anthropic = startMockAnthropic("sk-ant-upstream");
  gw = await startGateway({
    auth: DASHBOARD_AUTH,
    providers: {
      openai: { keys: [{ id: "o1", value: "sk-upstream", models: ["gpt-4o-mini"] }], network_config: { base_url: openai.baseUrl } },
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream", models: ["claude-haiku-4-5-20251001"] }], network_config: { base_url: anthropic.baseUrl } },
    },
  });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "web-app" } });
  keyId = ((await created.json()) as Json).virtual_key.id;
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/`);
  await signIn(watched.page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  openai?.stop();
  anthropic?.stop();
});

const page = () => watched.page;
const answer = (model: string) => page().getByRole("region", { name: `Answer from ${model}` });
const figure = async (model: string, name: string) => (await answer(model).getByRole("row", { name: new RegExp(`^${name}`) }).getByRole("cell").innerText()).trim();
const loggedRows = async () => ((await (await gw.admin(`/api/logs?virtual_key_ids=${keyId}&limit=50`)).json()) as Json).logs as Json[];

async function chooseModels(models: string[]) {
  for (const [index, model] of models.entries()) {
    if (index > 0 && !(await page().getByRole("combobox", { name: `Model ${index + 1}` }).isVisible())) await page().getByRole("button", { name: "Compare with another model" }).click();
    await page().getByRole("combobox", { name: `Model ${index + 1}` }).fill(model);
  }
}

describe("Playground", () => {
  test("one prompt against two models streams both answers, with each one's latency, tokens and cost from its log row", async () => {
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Playground" }).click();
    await page().getByRole("heading", { name: "Playground" }).waitFor();
    await page().getByLabel("Run as virtual key").selectOption({ label: "web-app" });
    await chooseModels([OPENAI_MODEL, CLAUDE_MODEL]);
    await page().getByLabel("System prompt").fill("Answer briefly.");
    await page().getByLabel("Prompt", { exact: true }).fill("hello from the playground");
    await page().getByLabel("Temperature").fill("0.2");
    await page().getByLabel("Max tokens").fill("64");
    await page().getByRole("button", { name: "Run" }).click();

    for (const model of [OPENAI_MODEL, CLAUDE_MODEL]) {
      await answer(model).getByLabel("Answer text").getByText("echo: hello from the playground").waitFor();
      await answer(model).getByRole("row", { name: /^Cost/ }).waitFor();
    }
    // Both went upstream as streams, with the system prompt and parameters typed.
    expect(openai.requests.at(-1)!.body).toMatchObject({ stream: true, temperature: 0.2, max_tokens: 64, messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content: "hello from the playground" }] });
    expect(anthropic.requests.at(-1)!.body).toMatchObject({ stream: true, temperature: 0.2, max_tokens: 64, system: expect.anything() });

    const rows = await eventually(loggedRows, (logged) => logged.length === 2);
    for (const model of [OPENAI_MODEL, CLAUDE_MODEL]) {
      const row = rows.find((logged) => `${logged.provider}/${logged.model}` === model)!;
      expect(row).toMatchObject({ virtual_key_name: "web-app", stream: true, status: "success", internal_caller: null });
      expect(row.cost).toBeGreaterThan(0);
      expect(await figure(model, "Cost")).toBe(formatCost(row.cost));
      expect(await figure(model, "Input tokens")).toBe(formatCount(row.input_tokens));
      expect(await figure(model, "Output tokens")).toBe(formatCount(row.output_tokens));
      expect(await figure(model, "Latency")).toBe(formatLatency(row.latency));
    }
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("tools with a JSON schema and an uploaded image are sent as typed, and the model's tool call is shown", async () => {
    await chooseModels([OPENAI_MODEL]);
    await page().getByRole("button", { name: "Remove model 2" }).click();
    await page().getByLabel("Prompt", { exact: true }).fill("what is the weather in Paris?");
    await page().getByLabel("Images").setInputFiles({ name: "pixel.png", mimeType: "image/png", buffer: PIXEL });
    await page().getByRole("img", { name: "Image 1" }).waitFor();
    await page().getByRole("button", { name: "Insert an example" }).click();
    await page().getByRole("button", { name: "Run" }).click();

    await answer(OPENAI_MODEL).getByRole("list", { name: "Tool calls" }).getByText('get_weather({"city":"Paris"})').waitFor();
    const sent = openai.requests.at(-1)!.body as Json;
    expect(sent.tools).toEqual([{ type: "function", function: { name: "get_weather", description: "The weather now in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }]);
    expect(sent.messages.at(-1).content).toEqual([
      { type: "text", text: "what is the weather in Paris?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL.toString("base64")}` } },
    ]);
  });

  test("a tools schema that is not JSON is named and nothing is sent", async () => {
    const before = openai.requests.length;
    await page().getByLabel("Tools").fill("[{ name: get_weather");
    await page().getByRole("button", { name: "Run" }).click();
    await page().getByRole("alert").getByText(/^not JSON/).waitFor();
    expect(openai.requests.length).toBe(before);
    await page().getByLabel("Tools").fill("");
  });

  test("view as code shows the request exactly as it was sent, the key read from the environment", async () => {
    await answer(OPENAI_MODEL).getByRole("button", { name: "View as code" }).click();
    const dialog = page().getByRole("dialog", { name: `${OPENAI_MODEL} as code` });
    const curl = await dialog.getByLabel("curl code").innerText();
    const body = JSON.parse(/-d '([\s\S]*)'$/.exec(curl.trim())![1]!) as Json;
    // What the gateway logged of the request it received is what the code sends.
    const rows = await eventually(loggedRows, (logged) => logged.length === 3);
    const detail = (await (await gw.admin(`/api/logs/${rows[0]!.id}`)).json()) as Json;
    expect(body).toEqual(detail.request_content);
    expect(curl).toContain(`${gw.url}/v1/chat/completions`);
    expect(curl).toContain("Authorization: Bearer $GATEWAY_VIRTUAL_KEY");

    await dialog.getByRole("group", { name: "Language" }).getByRole("button", { name: "OpenAI SDK" }).click();
    const sdk = await dialog.getByLabel("OpenAI SDK code").innerText();
    expect(sdk).toContain(`baseURL: "${gw.url}/v1"`);
    expect(sdk).toContain('"model": "openai/gpt-4o-mini"');
    await dialog.getByRole("group", { name: "Language" }).getByRole("button", { name: "Anthropic SDK" }).click();
    const claude = await dialog.getByLabel("Anthropic SDK code").innerText();
    expect(claude).toContain(`baseURL: "${gw.url}/anthropic"`);
    expect(claude).toContain('"input_schema"');
    expect(await seriousViolations(page())).toEqual([]);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  test("a model picked shows its input and output price per 1M tokens and its context window, as /v1/models lists them", async () => {
    await page().goto(`${gw.url}/ui/playground`);
    await page().getByLabel("Run as virtual key").selectOption({ label: "web-app" });
    const listed = ((await (await fetch(`${gw.url}/v1/models`)).json()) as Json).data as Json[];
    const facts = listed.find((model) => model.id === CLAUDE_MODEL)!;
    expect(facts.context_window).toBeGreaterThan(0);
    const field = page().getByRole("combobox", { name: "Model 1" });
    await field.fill(CLAUDE_MODEL);
    const perMillion = (field: string) => formatCost(facts.pricing[field] * 1_000_000);
    const expected = `${perMillion("input_cost_per_token")} in, ${perMillion("output_cost_per_token")} out per 1M tokens · ${formatCount(facts.context_window)} tokens of context`;
    /** The text the field is described by (its hint), as a screen reader announces it; empty without one. */
    const description = async () => {
      const describedBy = await field.getAttribute("aria-describedby");
      return describedBy ? await page().locator(`[id="${describedBy}"]`).innerText() : "";
    };
    expect(await eventually(description, (text) => text === expected)).toBe(expected);
    await field.fill("anthropic/not-a-model");
    expect(await description()).toBe("");
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
