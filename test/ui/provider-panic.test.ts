import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { postJson } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  const health = { failure_threshold: 2 };
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "only", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, health } } } });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/providers`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const chat = () => postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }] });

test("the providers page says when a provider served requests in panic on open keys", async () => {
  const card = watched.page.getByRole("region", { name: "Provider openai" });
  await card.getByRole("heading", { name: "openai" }).waitFor();
  expect(await card.getByRole("status").count()).toBe(0);

  upstream.faults.push({ kind: "status", status: 500 }, { kind: "status", status: 500 });
  for (let i = 0; i < 2; i++) expect((await chat()).status).toBe(500);
  expect((await chat()).status).toBe(200);

  await watched.page.reload();
  await card.getByRole("status").filter({ hasText: "Panic: 1 requests sent to keys whose breakers were open" }).waitFor();
});
