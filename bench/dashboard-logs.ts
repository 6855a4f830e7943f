/**
 * The dashboard's logs page over a large request log, measured in a real browser (not a test):
 * time from navigation to the first rows on screen, and from "Apply filters" to the filtered
 * rows, each the median of several runs.
 *
 *   npx bun bench/logs.ts --rows 1000000 --db /tmp/logs-1m.db     # makes (and keeps) the database
 *   npx bun bench/dashboard-logs.ts --db /tmp/logs-1m.db [--runs 5]
 *
 * Target: every figure under 1 s.
 */
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { createGateway } from "../src/app";
import { launchBrowser } from "../test/support/browser";

const { values: args } = parseArgs({ args: Bun.argv.slice(2), options: { db: { type: "string" }, runs: { type: "string", default: "5" } } });
if (!args.db) throw new Error("--db path/to/logs.db (made by bench/logs.ts --db)");
const RUNS = Number(args.runs);
const ADMIN = { username: "bench", password: "bench-password" };

const gateway = await createGateway({ config: { auth: { admin_username: ADMIN.username, admin_password: ADMIN.password } }, databaseUrl: `file:${args.db}` });
const server = gateway.listen(0, "127.0.0.1");
const url = `http://127.0.0.1:${server.port}`;
const browser = await launchBrowser();

// Evaluated in the page: the list has rows and is not loading.
const ROWS_SHOWN = `(() => { const table = document.querySelector('table[aria-label="Request logs"]'); return table?.getAttribute("aria-busy") === "false" && table.querySelectorAll("tbody tr").length > 0; })()`;
const rowsShown = (page: Page) => page.waitForFunction(ROWS_SHOWN, undefined, { polling: "raf" });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function filterChange(page: Page, fill: (page: Page) => Promise<void>): Promise<number> {
  await page.goto(`${url}/ui/logs`);
  await rowsShown(page);
  await fill(page);
  const before = page.url();
  return timed(async () => {
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL((next) => next.toString() !== before);
    await rowsShown(page);
  });
}

const CASES: Array<[name: string, measure: (page: Page) => Promise<number>]> = [
  ["open the logs page (navigation to first rows)", (page) => timed(async () => (await page.goto(`${url}/ui/logs`), await rowsShown(page)))],
  ["filter: model gpt-4o", (page) => filterChange(page, async (p) => void (await p.getByLabel("Model", { exact: true }).selectOption("gpt-4o")))],
  ["filter: status code 429", (page) => filterChange(page, (p) => p.getByLabel("Status codes").fill("429"))],
  ["filter: error type provider_upstream_error, last 24 hours", (page) =>
    filterChange(page, async (p) => {
      await p.getByLabel("Error types").fill("provider_upstream_error");
      await p.getByLabel("Time").selectOption("24h");
    })],
  ["filter: status error, last 24 hours", (page) =>
    filterChange(page, async (p) => {
      await p.getByLabel("Status").selectOption("error");
      await p.getByLabel("Time").selectOption("24h");
    })],
  ["filter: text search", (page) => filterChange(page, (p) => p.getByLabel("Search content").fill("kalomi"))],
  ["next page", async (page) => {
    await page.goto(`${url}/ui/logs`);
    await rowsShown(page);
    return timed(async () => {
      await page.getByRole("button", { name: "Next page" }).click();
      await page.waitForURL(/offset=50/);
      await rowsShown(page);
    });
  }],
];

try {
  const { page } = await browser.open(`${url}/`);
  await page.getByLabel("Username").fill(ADMIN.username);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  console.log(`| logs page over ${args.db} | median of ${RUNS} | slowest |`);
  console.log("|---|---:|---:|");
  for (const [name, measure] of CASES) {
    await measure(page);
    const timings: number[] = [];
    for (let run = 0; run < RUNS; run++) timings.push(await measure(page));
    console.log(`| ${name} | ${Math.round(median(timings))} ms | ${Math.round(Math.max(...timings))} ms |`);
  }
} finally {
  await browser.close();
  await gateway.stop();
}
