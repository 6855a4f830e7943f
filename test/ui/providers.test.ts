import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    auth: DASHBOARD_AUTH,
    providers: {
      local: { custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl } },
      openai: { keys: [], network_config: { base_url: upstream.baseUrl } },
    },
  });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/providers`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;

describe("providers page", () => {
  test("a keyless custom provider is said to serve without a key; a built-in one without keys asks for one", async () => {
    const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "local/llama3.2", messages: [{ role: "user", content: "hi" }] }) });
    expect(reply.status).toBe(200);
    const local = page().getByRole("region", { name: "Provider local" });
    await local.getByText("No key: local is reached without one, and no auth header is sent.").waitFor();
    expect(await local.getByText(/add one so requests can reach/).count()).toBe(0);
    await page().getByRole("region", { name: "Provider openai" }).getByText("No key yet: add one so requests can reach openai.").waitFor();
    expect(await seriousViolations(page())).toEqual([]);
    expect(watched.problems()).toEqual([]);
  });
});
