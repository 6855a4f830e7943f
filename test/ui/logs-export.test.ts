import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn } from "../support/browser";
import { parseCsv } from "../support/csv";
import { startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, recordFacts } from "../logs/seed-logs";

let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  gw = await startGateway({ auth: DASHBOARD_AUTH });
  await recordFacts(gw.databaseUrl, generateFacts(300, new Date()));
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const FILTERS = "providers=openai&status=success&period=7d";

test("Export CSV on the logs page downloads every log matching the page's filters, as the API lists them", async () => {
  const watched = await browser.open(`${gw.url}/ui/logs`);
  const { page } = watched;
  await signIn(page);
  // Sorted by cost on screen: the file still holds every match, newest first.
  await page.goto(`${gw.url}/ui/logs?${FILTERS}&sort_by=cost&order=asc`);
  await page.getByRole("table", { name: "Request logs" }).locator("tbody tr").first().waitFor();

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^logs-[\dT-]+Z\.csv$/);
  const [header, ...records] = parseCsv(readFileSync((await download.path())!, "utf8"));

  const listed = ((await (await gw.admin(`/api/logs?limit=1000&${FILTERS}`)).json()) as { logs: Array<Record<string, unknown>> }).logs;
  expect(listed.length).toBeGreaterThan(20);
  expect(listed.length).toBeLessThan(300);
  const column = (name: string) => header!.indexOf(name);
  expect(records.map((record) => record[column("id")])).toEqual(listed.map((log) => log.id as string));
  expect(records.map((record) => [record[column("provider")], record[column("status")], record[column("cost")]])).toEqual(listed.map((log) => [String(log.provider), String(log.status), log.cost === null ? "" : String(log.cost)]));
  expect(watched.problems()).toEqual([]);
}, 30_000);
