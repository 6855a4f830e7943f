import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The Analytics page as an operator reads it: a window and a grouping chosen, the figures it
 * shows compared with the log API's, and a click on a group or a point of a chart opening the
 * logs it stands for.
 */
let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
const keys: Record<string, { id: string; value: string }> = {};
let teamId: string;

type Json = Record<string, any>;

async function post(path: string, json: unknown): Promise<Json> {
  const response = await gw.admin(path, { method: "POST", json });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

const api = async (path: string) => (await (await gw.admin(path)).json()) as Json;

/** Each request names the feature it serves in its metadata: web-app's "search", batch's "summarise". */
function chat(key: string, model: string) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys[key]!.value}`, "content-type": "application/json", "x-gw-metadata-feature": key === "web-app" ? "search" : "summarise" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello there" }] }),
  });
}

const SENT = 7;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH });
  await post("/api/providers", { provider: "openai", keys: [{ id: "k1", name: "primary", value: "sk-upstream", models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } });
  await post("/api/governance/pricing-overrides", { name: "tiny", pattern: "gpt-4o*", patch: { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } });
  const { customer } = await post("/api/governance/customers", { name: "acme" });
  const { team } = await post("/api/governance/teams", { name: "checkout", customer_id: customer.id });
  teamId = team.id;
  for (const name of ["web-app", "batch"]) {
    const { virtual_key } = await post("/api/governance/virtual-keys", { name, ...(name === "web-app" ? { team_id: team.id } : {}) });
    keys[name] = { id: virtual_key.id, value: virtual_key.value };
  }
  for (let index = 0; index < 4; index++) expect((await chat("web-app", "openai/gpt-4o-mini")).status).toBe(200);
  await chat("batch", "openai/gpt-4o");
  await chat("batch", "openai/gpt-4o");
  upstream.faults.push({ kind: "status", status: 500 });
  expect((await chat("batch", "openai/gpt-4o")).status).toBe(500);
  await eventually(() => api("/api/logs/stats?period=1h"), (stats) => stats.total_requests === SENT);
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
const figure = (name: string) => page().getByRole("region", { name, exact: true }).locator(".figure-value");
const groupTable = (name: string) => page().getByRole("region", { name });

/** The table's rows as name and cells, read as shown. */
async function tableRows(name: string): Promise<string[][]> {
  const rows = groupTable(name).getByRole("row");
  await rows.nth(1).waitFor();
  return (await rows.evaluateAll((all) => all.slice(1).map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent!.trim())))) as string[][];
}

describe("Analytics page", () => {
  test("a window and a grouping chosen: the figures, the groups and the errors by type are the API's", async () => {
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Analytics" }).click();
    await page().getByRole("heading", { name: "Analytics" }).waitFor();
    await page().getByRole("group", { name: "Time window" }).getByRole("button", { name: "Last hour" }).click();
    await page().getByLabel("Group by").selectOption("virtual_key");
    await groupTable("By virtual key").waitFor();

    const stats = await api("/api/logs/stats?period=1h");
    expect(await figure("Requests").innerText()).toBe(String(stats.total_requests));
    expect(await figure("Errors").innerText()).toBe(String(stats.error_count));
    expect(stats.error_count).toBe(1);
    expect(await figure("Latency p95").innerText()).not.toBe("–");
    expect(await page().getByRole("region", { name: "Requests", exact: true }).innerText()).toContain("previous window: 0");

    const byKey = await api("/api/logs/series?period=1h&group_by=virtual_key");
    const rows = await tableRows("By virtual key");
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    expect(rows.map((row) => [row[0], row[1], row[2]])).toEqual(byKey.groups.map((group: Json) => [group.label, String(sum(group.requests)), String(sum(group.errors))]));
    expect(rows.map((row) => row[0])).toEqual(["web-app", "batch"]);
    expect(rows[0]![1]).toBe("4");

    const errors = await api("/api/logs/series?period=1h&group_by=error_type");
    expect(errors.groups).toHaveLength(1);
    expect(await tableRows("Errors by type")).toEqual([[errors.groups[0].label, "1"]]);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("a group's name opens the logs page filtered to that group and window", async () => {
    await page().getByLabel("Group by").selectOption("model");
    await groupTable("By model").getByRole("link", { name: "gpt-4o-mini" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    const url = new URL(page().url());
    expect(url.searchParams.get("models")).toBe("gpt-4o-mini");
    expect(url.searchParams.get("period")).toBe("1h");
    const table = page().getByRole("table", { name: "Request logs" });
    const shown = () => table.getByRole("button", { name: /open request / }).count();
    expect(await eventually(shown, (count) => count === 4)).toBe(4);
    await page().goBack();
    await groupTable("By model").waitFor();
  });

  test("the logs filters in the URL narrow every figure, and a group's link keeps them", async () => {
    const batch = keys.batch!.id;
    await page().goto(`${gw.url}/ui/analytics?virtual_key_ids=${batch}&period=1h&group_by=model`);
    await groupTable("By model").waitFor();
    const stats = await api(`/api/logs/stats?period=1h&virtual_key_ids=${batch}`);
    expect(stats.total_requests).toBe(3);
    expect(await figure("Requests").innerText()).toBe("3");
    expect(await figure("Errors").innerText()).toBe("1");
    expect(await tableRows("By model")).toEqual([["gpt-4o", "3", "1", String(stats.total_tokens), expect.any(String), "0.0 %"]]);
    await groupTable("By model").getByRole("link", { name: "gpt-4o" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    const url = new URL(page().url());
    expect([url.searchParams.get("virtual_key_ids"), url.searchParams.get("models")]).toEqual([batch, "gpt-4o"]);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("grouped by team and by customer, each named; a team's name opens its logs", async () => {
    await page().goto(`${gw.url}/ui/analytics?period=1h&group_by=team`);
    const byTeam = await tableRows("By team");
    const teamSeries = await api("/api/logs/series?period=1h&group_by=team");
    expect(teamSeries.groups.map((group: Json) => group.key)).toEqual([teamId]);
    expect(byTeam.map((row) => row.slice(0, 3))).toEqual([["checkout", "4", "0"]]);
    await page().getByLabel("Group by").selectOption("customer");
    expect((await tableRows("By customer")).map((row) => row.slice(0, 3))).toEqual([["acme", "4", "0"]]);
    await page().getByLabel("Group by").selectOption("team");
    await groupTable("By team").getByRole("link", { name: "checkout" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    expect(new URL(page().url()).searchParams.get("team_ids")).toBe(teamId);
    const table = page().getByRole("table", { name: "Request logs" });
    expect(await eventually(() => table.getByRole("button", { name: /open request / }).count(), (count) => count === 4)).toBe(4);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("grouped by a metadata key picked among those in use: each value's figures are the API's, and a value opens its logs", async () => {
    await page().goto(`${gw.url}/ui/analytics?period=1h&group_by=model`);
    await groupTable("By model").waitFor();
    const picker = page().getByLabel("Group by");
    expect(await picker.getByRole("option").allInnerTexts()).toContain("Metadata feature");
    await picker.selectOption({ label: "Metadata feature" });
    const byFeature = await api("/api/logs/series?period=1h&group_by=metadata.feature");
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    expect(byFeature.groups.map((group: Json) => [group.key, sum(group.requests), sum(group.errors)])).toEqual([
      ["search", 4, 0],
      ["summarise", 3, 1],
    ]);
    expect((await tableRows("By metadata feature")).map((row) => row.slice(0, 3))).toEqual([
      ["search", "4", "0"],
      ["summarise", "3", "1"],
    ]);
    expect(new URL(page().url()).searchParams.get("group_by")).toBe("metadata.feature");
    await groupTable("By metadata feature").getByRole("link", { name: "summarise" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    expect(new URL(page().url()).searchParams.get("metadata_feature")).toBe("summarise");
    const table = page().getByRole("table", { name: "Request logs" });
    expect(await eventually(() => table.getByRole("button", { name: /open request / }).count(), (count) => count === 3)).toBe(3);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("a click on a chart's point opens the logs of that group over that bucket, as many rows as the API counts", async () => {
    // The page's buckets are the API's when both reads fall between the same bucket boundaries.
    let series: Json | undefined;
    for (let attempt = 0; attempt < 3 && !series; attempt++) {
      const before = await api("/api/logs/series?period=1h&group_by=model");
      await page().goto(`${gw.url}/ui/analytics?period=1h&group_by=model`);
      await groupTable("By model").waitFor();
      const after = await api("/api/logs/series?period=1h&group_by=model");
      if (before.timestamps[0] === after.timestamps[0]) series = after;
    }
    if (!series) throw new Error("every read straddled a bucket boundary");
    // The busiest point: the bucket and group with the most requests (the first group on a tie).
    let busiest = { index: 0, group: 0, requests: 0 };
    series.groups.forEach((group: Json, position: number) =>
      group.requests.forEach((requests: number, index: number) => {
        if (requests > busiest.requests) busiest = { index, group: position, requests };
      }),
    );
    const times = series.timestamps.map((timestamp: string) => new Date(timestamp).getTime());
    // Measured once the page is complete: the metadata keys arrive last and may move the charts.
    await page().getByLabel("Group by").getByRole("option", { name: "Metadata feature" }).waitFor({ state: "attached" });
    // The plot area (uPlot's overlay) spans the first bucket to the last; the largest value is drawn nearest its top.
    const plot = await page().getByRole("img", { name: /^Requests by model/ }).locator(".u-over").boundingBox();
    const x = plot!.x + (plot!.width * (times[busiest.index] - times[0])) / (times.at(-1) - times[0]);
    // A few pixels inside the plot's right edge, where the newest bucket is drawn.
    await page().mouse.click(Math.min(x, plot!.x + plot!.width - 3), plot!.y + 2);
    await page().getByRole("heading", { name: "Logs" }).waitFor();

    const url = new URL(page().url());
    const start = times[busiest.index];
    expect(Object.fromEntries(url.searchParams)).toEqual({
      models: series.groups[busiest.group].key,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + series.bucket_size_seconds * 1000 - 1).toISOString(),
    });
    const listed = await api(`/api/logs${url.search}&limit=100`);
    expect(listed.total).toBe(busiest.requests);
    const table = page().getByRole("table", { name: "Request logs" });
    expect(await eventually(() => table.getByRole("button", { name: /open request / }).count(), (count) => count === listed.total)).toBe(busiest.requests);
    expect(await page().getByLabel("Time").inputValue()).toBe("custom");
  });

  test("what guardrails blocked and redacted is counted beside the previous window, each count opening those logs", async () => {
    const { virtual_key } = await post("/api/governance/virtual-keys", { name: "guarded" });
    keys.guarded = { id: virtual_key.id, value: virtual_key.value };
    await post("/api/guardrails", {
      name: "house-rules",
      scope: "virtual_key",
      scope_id: virtual_key.id,
      checks: [
        { type: "email", action: "redact", stage: "input" },
        { type: "word_list", words: ["forbidden"], action: "block", stage: "input" },
      ],
    });
    const send = (content: string) =>
      fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${virtual_key.value}`, "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }) });
    expect((await send("write to ann@example.com")).status).toBe(200);
    expect((await send("a forbidden word")).status).toBeGreaterThanOrEqual(400);
    const blocked = await eventually(() => api("/api/logs/stats?period=1h&guardrail_actions=block"), (stats) => stats.total_requests === 1);
    const redacted = await eventually(() => api("/api/logs/stats?period=1h&guardrail_actions=redact"), (stats) => stats.total_requests === 1);

    await page().goto(`${gw.url}/ui/analytics?period=1h`);
    expect(await figure("Blocked by guardrails").innerText()).toBe(String(blocked.total_requests));
    expect(await figure("Redacted by guardrails").innerText()).toBe(String(redacted.total_requests));
    expect(await page().getByRole("region", { name: "Blocked by guardrails" }).innerText()).toContain("previous window: 0");
    await figure("Blocked by guardrails").getByRole("link").click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    expect(new URL(page().url()).searchParams.get("guardrail_actions")).toBe("block");
    expect(await page().getByLabel("Verdict").inputValue()).toBe("block");
    const table = page().getByRole("table", { name: "Request logs" });
    expect(await eventually(() => table.getByRole("button", { name: /open request / }).count(), (count) => count === 1)).toBe(1);
    expect(await seriousViolations(page())).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
