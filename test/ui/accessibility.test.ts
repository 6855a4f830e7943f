import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * Every page, in light and in dark, with something on it: no serious or critical axe-core
 * violation. The theme is chosen in the top bar and remembered by the browser.
 */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

const PAGES = ["/", "/ui/logs", "/ui/analytics", "/ui/playground", "/ui/providers", "/ui/governance", "/ui/governance/organization", "/ui/governance/routing-rules", "/ui/governance/pricing", "/ui/governance/limits", "/ui/guardrails", "/ui/prompts", "/ui/prompts/greeting", "/ui/mcp", "/ui/virtual-servers", "/ui/agents", "/ui/webhooks", "/ui/log-sinks", "/ui/alerts", "/ui/plugins", "/ui/lifecycles", "/ui/warp", "/ui/access"];

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "main", name: "main", value: "sk-upstream-main", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "web-app", budgets: [{ max_limit: 5, reset_duration: "1M" }] } });
  const { virtual_key } = (await created.json()) as { virtual_key: { value: string } };
  const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${virtual_key.value}`, "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }) });
  expect(reply.status).toBe(200);
  await eventually(async () => ((await (await gw.admin("/api/logs")).json()) as { logs: unknown[] }).logs, (logs) => logs.length === 1);
  const prompt = await gw.admin("/api/prompts", { method: "POST", json: { name: "greeting", messages: [{ role: "user", content: "Hello {{who}}" }] } });
  expect(prompt.status).toBe(201);
  expect((await gw.admin("/api/prompts/greeting/versions", { method: "POST", json: { messages: [{ role: "user", content: "Hi {{who}}" }] } })).status).toBe(201);
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/`);
  await signIn(watched.page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;
// Evaluated in the page, where getComputedStyle exists; the test's program has no DOM types.
const background = () => page().evaluate("getComputedStyle(document.body).backgroundColor") as Promise<string>;

/** Every page, each loaded once and checked in the system's light theme, then in dark chosen in the top bar. */
async function checkEveryPageInBothThemes() {
  for (const path of PAGES) {
    await page().goto(`${gw.url}${path}`);
    await page().getByRole("heading", { level: 1 }).waitFor();
    // Wait until the page has read what it shows.
    await page().waitForFunction("document.querySelectorAll('[aria-busy=\"true\"], .loading').length === 0");
    expect({ theme: "light", path, violations: await seriousViolations(page()) }).toEqual({ theme: "light", path, violations: [] });
    // Every colour follows color-scheme (styles.css), so the page switched in place is the page loaded in dark.
    const light = await background();
    await page().getByLabel("Theme").selectOption("dark");
    expect(await background()).not.toBe(light);
    expect({ theme: "dark", path, violations: await seriousViolations(page()) }).toEqual({ theme: "dark", path, violations: [] });
    await page().getByLabel("Theme").selectOption("system");
  }
}

describe("accessibility and theme", () => {
  test("dark, chosen in the top bar, stays chosen after a reload; the system's theme is light again", async () => {
    const light = await background();
    await page().getByLabel("Theme").selectOption("dark");
    expect(await background()).not.toBe(light);
    const dark = await background();
    await page().reload();
    await page().getByRole("navigation", { name: "Main" }).waitFor();
    expect(await background()).toBe(dark);
    expect(await page().getByLabel("Theme").inputValue()).toBe("dark");
    await page().getByLabel("Theme").selectOption("system");
    expect(await background()).toBe(light);
  });

  test("every page, in the system's light theme and in dark chosen in the top bar, has no serious or critical violation", () => checkEveryPageInBothThemes(), 120_000);

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
