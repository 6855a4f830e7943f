import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAlertReceivers } from "../support/alert-receivers";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, untilReadAgain, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { loggedRequests } from "../alerts/support";

let upstream: MockOpenAI;
let receivers: ReturnType<typeof startAlertReceivers>;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
/** How often the alerts page reads its rules again (REFRESH_MS of alerts.tsx). */
const PAGE_REFRESH_MS = 3_000;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receivers = startAlertReceivers();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } });
  browser = await launchBrowser();
  await browser.context.clock.install();
  watched = await browser.open(`${gw.url}/ui/alerts`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
  receivers?.stop();
});

const page = () => watched.page;

describe("alerts page", () => {
  test("a user adds a Slack channel and sends it a test", async () => {
    await page().getByRole("heading", { name: "No alert rule yet" }).waitFor();
    await page().getByRole("button", { name: "Add channel" }).click();
    const form = page().getByRole("dialog", { name: "Add a channel" });
    await form.getByLabel("Name").fill("ops");
    await form.getByLabel("Webhook URL").fill(`${receivers.url}/slack/T1/B1/secret-part`);
    await form.getByLabel("Allow private networks and plain http").check();
    await form.getByRole("button", { name: "Add channel" }).click();
    const row = page().getByRole("table", { name: "Alert channels" }).getByRole("row").filter({ hasText: "ops" });
    await row.getByRole("cell", { name: "Slack" }).waitFor();
    expect(await row.innerText()).not.toContain("secret-part");
    await row.getByRole("button", { name: "Send a test to ops" }).click();
    await page().getByText(/Test to ops: delivered/).waitFor();
    expect(receivers.to("/slack").map((post) => post.body.text as string)[0]).toStartWith("Test: Test notification");
  });

  test("a user adds a rule, evaluates it into firing, acknowledges and silences it, and reads its history", async () => {
    await page().getByRole("button", { name: "Add rule" }).click();
    const form = page().getByRole("dialog", { name: "Add an alert rule" });
    await form.getByLabel("Name").fill("Any traffic");
    await form.getByLabel("Condition").fill("requests >= 1");
    await form.getByLabel("ops").check();
    await form.getByRole("button", { name: "Add rule" }).click();
    const row = page().getByRole("table", { name: "Alert rules" }).getByRole("row").filter({ hasText: "Any traffic" });
    await row.getByText("ok", { exact: true }).waitFor();

    const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }) });
    expect(reply.status).toBe(200);
    await loggedRequests(gw, "openai", 1);
    await row.getByRole("button", { name: "Evaluate Any traffic now" }).click();
    await untilReadAgain(page(), row.getByText("firing", { exact: true }), PAGE_REFRESH_MS);
    await row.getByText("requests = 1").waitFor();
    const firing = await eventually(async () => receivers.to("/slack"), (posts) => posts.length >= 2);
    expect(firing[1]!.body.text).toStartWith("Firing: Any traffic");

    await row.getByRole("button", { name: "Acknowledge Any traffic" }).click();
    await untilReadAgain(page(), row.getByText("acknowledged by admin:admin"), PAGE_REFRESH_MS);
    await row.getByRole("button", { name: "Silence Any traffic for an hour" }).click();
    await untilReadAgain(page(), row.getByText(/silenced until/), PAGE_REFRESH_MS);
    await row.getByRole("button", { name: "Lift the silence of Any traffic" }).waitFor();

    await row.getByRole("button", { name: "History of Any traffic" }).click();
    const history = page().getByRole("dialog", { name: "History of Any traffic" });
    await history.getByRole("cell", { name: "ok → firing" }).waitFor();
    await history.getByText("slack 'ops': sent (HTTP 200: ok)").waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("the key's page says when its budget runs out at the current rate", async () => {
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "spender", budgets: [{ max_limit: 0.0001, reset_duration: "1M" }] } });
    const key = ((await created.json()) as { virtual_key: { id: string; value: string } }).virtual_key;
    for (const content of ["spend", "more"]) {
      const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key.value}` }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }) });
      expect(reply.status).toBe(200);
    }
    const forecast = await eventually(
      async () => ((await (await gw.admin(`/api/alerts/forecast?owner_id=${key.id}`)).json()) as { forecasts: Array<{ short_window: { exhausted_at: string | null } }> }).forecasts[0],
      (read) => !!read?.short_window.exhausted_at,
    );
    expect(forecast?.short_window.exhausted_at).toBeString();
    await page().goto(`${gw.url}/ui/governance`);
    const row = page().getByRole("row").filter({ hasText: "spender" });
    await row.getByText(/Runs out .* at the current rate/).waitFor({ timeout: 10_000 });
  });

  test("the team's and the customer's pages say when their budgets run out, from what their keys spent", async () => {
    const create = async (path: string, body: Record<string, unknown>) => {
      const response = await gw.admin(path, { method: "POST", json: body });
      expect(response.status).toBe(201);
      return (await response.json()) as Record<string, { id: string; value: string }>;
    };
    const budget = { budgets: [{ max_limit: 0.0001, reset_duration: "1M" }] };
    const customer = (await create("/api/governance/customers", { name: "Acme", ...budget })).customer!;
    const team = (await create("/api/governance/teams", { name: "Search team", customer_id: customer.id, ...budget })).team!;
    const key = (await create("/api/governance/virtual-keys", { name: "team key", team_id: team.id })).virtual_key!;
    const reply = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key.value}` }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "spend" }] }) });
    expect(reply.status).toBe(200);
    for (const [level, id] of [["team", team.id], ["customer", customer.id]]) {
      await eventually(
        async () => ((await (await gw.admin(`/api/alerts/forecast?level=${level}&owner_id=${id}`)).json()) as { forecasts: Array<{ short_window: { exhausted_at: string | null } }> }).forecasts[0],
        (read) => !!read?.short_window.exhausted_at,
      );
    }
    for (const [tab, name] of [["Teams", "Search team"], ["Customers", "Acme"]]) {
      await page().getByRole("navigation", { name: "Governance sections" }).getByRole("link", { name: tab }).click();
      const row = page().getByRole("table", { name: tab }).getByRole("row").filter({ hasText: name! });
      await row.getByText(/Runs out .* at the current rate/).waitFor({ timeout: 10_000 });
    }
  });
});
