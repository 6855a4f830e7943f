import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import OpenAI from "openai";
import { eventually } from "../support/eventually";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const TAGGING_PLUGIN = join(import.meta.dir, "../support/plugins/tagging-plugin.ts");

let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/plugins`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;
const ask = (content: string) =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-cache-key": "faq" } }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

describe("plugins and cache page", () => {
  test("a plugin added by its path runs, shows its log, and stops when disabled", async () => {
    await page().getByRole("region", { name: "Plugin response_cache" }).waitFor();
    await page().getByRole("button", { name: "Add plugin" }).click();
    const form = page().getByRole("dialog", { name: "Add a plugin" });
    await form.getByLabel("Name").fill("tagger");
    await form.getByLabel("Path or URL").fill(TAGGING_PLUGIN);
    await form.getByLabel("Configuration (JSON)").fill('{"tag": "ui"}');
    await form.getByRole("button", { name: "Add plugin" }).click();
    const card = page().getByRole("region", { name: "Plugin tagger" });
    await card.getByText("active", { exact: true }).waitFor();
    await card.getByText("Log (").click();
    await card.getByLabel("Log of tagger").getByText("tagging requests with ui").waitFor();
    expect((await ask("hello")).choices[0]!.message.content).toBe("echo: hello [ui]");

    await card.getByRole("button", { name: "Disable" }).click();
    await card.getByText("disabled", { exact: true }).waitFor();
    expect((await ask("hello again")).choices[0]!.message.content).toBe("echo: hello again");
  });

  test("the cache's hit rate is shown and a key's responses are cleared", async () => {
    // The cache stores a response after answering it: ask again until the answer comes from it.
    await ask("cached question");
    await eventually(
      async () => {
        const upstreamCalls = upstream.requests.length;
        await ask("cached question");
        return upstream.requests.length === upstreamCalls;
      },
      (answeredFromCache) => answeredFromCache,
    );
    // Requests are logged in batches: the figures count the hit once its log is written.
    const answeredFromCache = page().getByRole("region", { name: "Answered from the cache" });
    await eventually(
      async () => {
        await page().reload();
        return answeredFromCache.getByRole("paragraph").innerText();
      },
      (figure) => figure === "1",
    );
    expect(await page().getByRole("region", { name: "Cache hit rate" }).innerText()).toMatch(/\n[1-9]\d*\.\d %$/);
    await page().getByLabel("Cache key").fill("faq");
    await page().getByRole("button", { name: "Clear by key" }).click();
    await page().getByText(/Cleared [1-9]\d* cached responses/).waitFor();
    const before = upstream.requests.length;
    await ask("cached question");
    expect(upstream.requests.length).toBe(before + 1);
  });

  test("moving a plugin earlier changes the order requests pass through them", async () => {
    for (const [name, tag] of [["one", "1"], ["two", "2"]]) {
      const created = await gw.admin("/api/plugins", { method: "POST", json: { name, path: TAGGING_PLUGIN, config: { tag } } });
      expect(created.status).toBe(201);
    }
    await page().reload();
    await page().getByRole("region", { name: "Plugin two" }).waitFor();
    const customPlugins = async () => (await page().getByRole("region", { name: /^Plugin / }).filter({ hasText: "custom #" }).getByRole("heading").allInnerTexts()).map((title) => title.split(" ")[0]);
    expect(await customPlugins()).toEqual(["tagger", "one", "two"]);
    expect((await ask("in order")).choices[0]!.message.content).toBe("echo: in order [1] [2]");

    await page().getByRole("button", { name: "Run two earlier" }).click();
    await page().getByText("two now runs earlier").waitFor();
    await page().getByRole("region", { name: "Plugin two" }).getByText(/custom #2/).waitFor();
    expect(await customPlugins()).toEqual(["tagger", "two", "one"]);
    expect((await ask("reordered")).choices[0]!.message.content).toBe("echo: reordered [2] [1]");
    expect(await page().getByRole("button", { name: "Run tagger earlier" }).isDisabled()).toBe(true);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
