import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The logs page answering an operator's questions: which requests failed and how (status code,
 * error type), whose they were (virtual key, team, customer, provider key picked by name), what
 * guardrails did, how each was routed and what it cost; new requests arrive without a reload.
 * Every answer is compared with the API's.
 */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
const keys: Record<string, { id: string; value: string }> = {};

type Json = Record<string, any>;

async function post(path: string, json: unknown): Promise<Json> {
  const response = await gw.admin(path, { method: "POST", json });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH });
  await post("/api/providers", { provider: "openai", keys: [{ id: "k-primary", name: "primary", value: "sk-upstream-primary", models: ["*"] }], network_config: { base_url: upstream.baseUrl } });
  // Nothing listens on port 9: every call to `down` fails at once, and its fallback answers.
  await post("/api/providers", { provider: "down", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: "http://127.0.0.1:9/v1", max_retries: 0 } });
  await post("/api/governance/pricing-overrides", { name: "tiny", pattern: "gpt-4o-mini", patch: { input_cost_per_token: 1e-8, output_cost_per_token: 1e-8 } });
  await post("/api/guardrails", { name: "no-emails", checks: [{ type: "email", action: "redact", stage: "input" }] });
  const { team } = await post("/api/governance/teams", { name: "platform" });
  const { customer } = await post("/api/governance/customers", { name: "acme" });
  for (const [name, extra] of [
    ["web-app", { team_id: team.id }],
    ["batch", { customer_id: customer.id, rate_limit: { request_max_limit: 1, request_reset_duration: "1h" } }],
  ] as const) {
    const { virtual_key } = await post("/api/governance/virtual-keys", { name, ...extra });
    keys[name] = { id: virtual_key.id, value: virtual_key.value };
  }
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/logs`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;
const table = () => page().getByRole("table", { name: "Request logs" });
const filters = () => page().getByRole("search", { name: "Log filters" });

function chat(key: string, content: string, extra: Json = {}) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys[key]!.value}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra }),
  });
}

const apiLogs = async (query: string) => ((await (await gw.admin(`/api/logs?${query}`)).json()) as Json).logs as Json[];

/** The ids of the rows shown, read from their "Open request <id>" buttons. */
async function shownIds(): Promise<string[]> {
  const labels = await table().getByRole("button", { name: /open request / }).evaluateAll((buttons) => buttons.map((button) => button.getAttribute("aria-label")!));
  return labels.map((label) => label.replace(/^.*open request /, ""));
}

async function applyFilters(fill: () => Promise<void>) {
  await filters().getByRole("button", { name: "Clear" }).click();
  await fill();
  await filters().getByRole("button", { name: "Apply filters" }).click();
  await page().waitForURL(/\?/);
  await table().and(page().locator('[aria-busy="false"]')).waitFor();
}

describe("the logs page", () => {
  test("live by default: a new request appears without a reload, and pausing stops that", async () => {
    await page().getByRole("heading", { name: "No requests logged yet" }).waitFor();
    expect(await page().getByRole("switch", { name: "Live updates" }).isChecked()).toBe(true);
    await page().getByRole("img", { name: "live updates live" }).waitFor();
    expect((await chat("web-app", "first of the day")).status).toBe(200);
    await table().getByRole("cell", { name: "web-app", exact: true }).waitFor();

    await page().getByRole("switch", { name: "Live updates" }).uncheck();
    expect((await chat("web-app", "while paused")).status).toBe(200);
    await eventually(() => apiLogs(""), (logs) => logs.length === 2);
    // The feed looks every half second: two looks later, the paused page still shows one row.
    await page().waitForTimeout(1_200);
    expect(await shownIds()).toHaveLength(1);
    await page().getByRole("switch", { name: "Live updates" }).check();
    await page().reload();
    await eventually(shownIds, (ids) => ids.length === 2);
  });

  test("status codes and error types are columns and filters", async () => {
    expect((await chat("batch", "allowed")).status).toBe(200);
    expect((await chat("batch", "over the limit")).status).toBe(429);
    await eventually(() => apiLogs("status_codes=429"), (logs) => logs.length === 1);
    await page().reload();
    const refused = table().getByRole("row", { name: /error 429.*batch.*policy_rate_limited/ });
    await refused.waitFor();

    await applyFilters(() => filters().getByLabel("Status codes").fill("429"));
    expect(await shownIds()).toEqual((await apiLogs("status_codes=429")).map((log) => log.id));
    await applyFilters(() => filters().getByLabel("Error types").fill("policy_rate_limited"));
    expect(await shownIds()).toEqual((await apiLogs("error_types=policy_rate_limited")).map((log) => log.id));
    expect(await shownIds()).toHaveLength(1);
  });

  test("virtual key, team, customer, provider key and model are picked by name", async () => {
    const cases: Array<[string, string, string]> = [
      ["Virtual key", "web-app", `virtual_key_ids=${keys["web-app"]!.id}`],
      ["Team", "platform", `team_ids=${(await apiLogs(`virtual_key_ids=${keys["web-app"]!.id}`))[0]!.team_id}`],
      ["Customer", "acme", `customer_ids=${(await apiLogs(`virtual_key_ids=${keys.batch!.id}`))[0]!.customer_id}`],
      ["Provider key", "openai / primary", "selected_key_ids=k-primary"],
      ["Model", "gpt-4o-mini", "models=gpt-4o-mini"],
    ];
    for (const [label, name, query] of cases) {
      await applyFilters(async () => void (await filters().getByLabel(label, { exact: true }).selectOption({ label: name })));
      const expected = (await apiLogs(query)).map((log) => log.id);
      expect(expected.length).toBeGreaterThan(0);
      expect({ label, ids: await shownIds() }).toEqual({ label, ids: expected });
    }
    // The provider key is shown by its name.
    await table().getByRole("cell", { name: "openai / primary" }).first().waitFor();
    expect(await table().getByText("k-primary").count()).toBe(0);
  });

  test("what a guardrail did is a column, a filter and a part of the detail", async () => {
    expect((await chat("web-app", "write to me at someone@example.com")).status).toBe(200);
    await eventually(() => apiLogs("guardrails=no-emails"), (logs) => logs.length === 1);
    await applyFilters(async () => void (await filters().getByLabel("Guardrail").selectOption({ label: "no-emails" })));
    expect(await shownIds()).toEqual((await apiLogs("guardrails=no-emails")).map((log) => log.id));
    const row = table().getByRole("row", { name: /no-emails: redact/ });
    await row.getByRole("button", { name: /open request/ }).click();
    const detail = page().getByRole("dialog", { name: "Request detail" });
    await detail.getByRole("table", { name: "Guardrail verdicts" }).getByRole("row", { name: /no-emails.*email.*request.*redacted.*1/ }).waitFor();
    expect(await seriousViolations(page())).toEqual([]);
    await detail.getByRole("button", { name: "Close" }).click();
  });

  test("a request's detail: its attempts with the fallback, cache, tokens and cost as the API has them", async () => {
    expect((await chat("web-app", "try down first", { model: "down/gpt-4o-mini", fallbacks: ["openai/gpt-4o-mini"] })).status).toBe(200);
    const [log] = await eventually(() => apiLogs("content_search=down"), (logs) => logs.length === 1);
    await page().goto(`${gw.url}/ui/logs?request_id=${log!.id}`);
    await table().getByRole("button", { name: `open request ${log!.id}` }).click();
    const detail = page().getByRole("dialog", { name: "Request detail" });
    const attempts = detail.getByRole("table", { name: "Attempts" });
    await attempts.getByRole("row", { name: /^1 down\/gpt-4o-mini.*502 provider_unreachable/ }).waitFor();
    await attempts.getByRole("row", { name: /^2 openai\/gpt-4o-mini fallback openai \/ primary/ }).waitFor();
    expect(log!.attempts).toHaveLength(2);
    const costs = detail.getByRole("region", { name: "Tokens and cost" });
    const fact = (label: string) => costs.getByText(label, { exact: true }).locator("xpath=following-sibling::dd").innerText();
    expect(await fact("Input tokens")).toBe(String(log!.input_tokens));
    expect(await fact("Output tokens")).toBe(String(log!.output_tokens));
    // One cost format: two significant digits, no exponent, whatever the size.
    const cost = await fact("Cost");
    expect(cost).toMatch(/^\$0\.0*[1-9]\d?$/);
    expect(Number(cost.slice(1))).toBe(Number(log!.cost.toPrecision(2)));
    expect(await detail.getByText("miss", { exact: true }).count()).toBe(1);
    expect(await seriousViolations(page())).toEqual([]);
    await detail.getByRole("button", { name: "Close" }).click();
  });

  test("every request on a page can be selected with one labelled box", async () => {
    await page().goto(`${gw.url}/ui/logs`);
    await page().getByRole("checkbox", { name: "Select every request on this page" }).check();
    await page().getByRole("button", { name: `Delete selected (${(await shownIds()).length})` }).waitFor();
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
