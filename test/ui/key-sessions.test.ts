import { afterAll, beforeAll, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** The virtual key page shows a key's session budgets and what each session spent. */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-1" }], network_config: { base_url: upstream.baseUrl } } } });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "agent-runner", session_budgets: { max_tokens: 7 } } });
  const { virtual_key } = (await created.json()) as { virtual_key: { id: string; value: string } };
  const run = () =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${virtual_key.value}`, "content-type": "application/json", "x-gw-session-id": "nightly-run-7" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }] }),
    });
  expect((await run()).status).toBe(200);
  await eventually(
    async () => ((await (await gw.admin(`/api/governance/virtual-keys/${virtual_key.id}/sessions`)).json()) as { sessions: unknown[] }).sessions,
    (sessions) => sessions.length === 1,
  );
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/governance`);
  await signIn(watched.page);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

test("a key's sessions, with the one past its budget marked", async () => {
  const page = watched.page;
  const keys = page.getByRole("table", { name: "Virtual keys" });
  await keys.getByText("7 tokens per session").waitFor();
  await page.getByRole("button", { name: "Sessions of agent-runner" }).click();
  const panel = page.getByRole("dialog", { name: "Sessions of agent-runner" });
  const row = panel.getByRole("table", { name: "Sessions" }).getByRole("row", { name: /nightly-run-7/ });
  await row.waitFor();
  expect(await row.getByRole("cell").allInnerTexts()).toEqual(["nightly-run-7", "1", "7", expect.any(String), expect.any(String), "over its tokens budget"]);
  expect(await seriousViolations(page)).toEqual([]);
  expect(watched.problems()).toEqual([]);
}, 30_000);
