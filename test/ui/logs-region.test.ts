import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** Two nodes of one deployment, in regions `eu` and `us`, on one database: each logs what it serves with its region. */
let upstream: MockOpenAI;
let eu: TestGateway;
let us: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  const config = { auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } };
  eu = await startGateway(config, { env: { GATEWAY_REGION: "eu", GATEWAY_NODE_ID: "gateway-eu" } });
  us = await startGateway(config, { databaseUrl: eu.databaseUrl, env: { GATEWAY_REGION: "us", GATEWAY_NODE_ID: "gateway-us" } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  // The node that made the database deletes it on close: the other closes first.
  await us?.close();
  await eu?.close();
  upstream?.stop();
});

const chatOn = (node: TestGateway, text: string) => new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }] });
const storedLogs = async () => ((await (await eu.admin("/api/logs?limit=100")).json()) as { logs: Array<{ region: string | null }> }).logs;

/** The Region column's cells, top to bottom, read from one rendering of the table (undefined while it has no such column). */
const regionColumn = (page: WatchedPage["page"]) =>
  page.getByRole("table", { name: "Request logs" }).evaluate((table) => {
    const column = [...table.querySelectorAll("thead th")].findIndex((header) => header.textContent?.trim() === "Region");
    return column < 0 ? undefined : [...table.querySelectorAll("tbody tr")].map((row) => row.querySelectorAll("td")[column]?.textContent?.trim());
  });
const shownRegions = (page: WatchedPage["page"], count: number) => eventually(() => regionColumn(page), (cells) => cells?.length === count);

test("the logs page shows each request's region and narrows to a region, kept in the URL across a reload", async () => {
  await chatOn(eu, "served in europe");
  for (const text of ["served in america", "again in america", "once more in america"]) await chatOn(us, text);
  await eventually(storedLogs, (logs) => logs.length === 4);

  watched = await browser.open(`${eu.url}/ui/logs`);
  const page = watched.page;
  await signIn(page);
  expect((await shownRegions(page, 4))!.toSorted()).toEqual(["eu", "us", "us", "us"]);

  await page.getByRole("button", { name: "More filters" }).click();
  await page.getByLabel("Regions").fill("us");
  await page.getByRole("button", { name: "Apply filters" }).click();
  expect(await shownRegions(page, 3)).toEqual(["us", "us", "us"]);
  expect(new URL(page.url()).searchParams.get("regions")).toBe("us");

  await page.reload();
  expect(await shownRegions(page, 3)).toEqual(["us", "us", "us"]);
  expect(await page.getByLabel("Regions").inputValue()).toBe("us");

  await page.getByLabel("Regions").fill("eu, nowhere");
  await page.getByRole("button", { name: "Apply filters" }).click();
  expect(await shownRegions(page, 1)).toEqual(["eu"]);
  expect(watched.problems()).toEqual([]);
}, 30_000);

test("a deployment whose nodes name no region shows no Region column", async () => {
  const plain = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } });
  try {
    await chatOn(plain, "served nowhere in particular");
    await eventually(async () => ((await (await plain.admin("/api/logs")).json()) as { logs: unknown[] }).logs.length, (count) => count === 1);
    const other = await browser.open(`${plain.url}/ui/logs`);
    await signIn(other.page);
    const table = other.page.getByRole("table", { name: "Request logs" });
    await table.locator("tbody tr").first().waitFor();
    expect(await table.getByRole("columnheader").allInnerTexts()).not.toContain("Region");
    expect(other.problems()).toEqual([]);
  } finally {
    await plain.close();
  }
}, 30_000);
