import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, untilReadAgain } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type LogSinkReceiver, startLogSinkReceiver } from "../support/log-sink-receiver";
import { generateFacts, recordFacts } from "../logs/seed-logs";

let gw: TestGateway;
let browser: Browser;
let receiver: LogSinkReceiver;
/** How often the page reads the sinks' states again (REFRESH_MS of log-sinks.tsx). */
const PAGE_REFRESH_MS = 3_000;
const folder = mkdtempSync(join(tmpdir(), "gateway-sinks-page-"));

beforeAll(async () => {
  receiver = startLogSinkReceiver();
  receiver.down = true;
  const quick = { poll_interval_ms: 50, retry_backoff_initial_ms: 50, retry_backoff_max_ms: 100 };
  gw = await startGateway({
    auth: DASHBOARD_AUTH,
    log_sinks: [
      { type: "http", name: "collector", url: `${receiver.url}/collector`, secret: receiver.secret, ...quick },
      { type: "file", name: "shipper", path: join(folder, "gateway.jsonl"), filter: 'status == "success"', ...quick },
    ],
  });
  await recordFacts(gw.databaseUrl, generateFacts(40, new Date()));
  browser = await launchBrowser();
  await browser.context.clock.install();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  receiver.stop();
  rmSync(folder, { recursive: true, force: true });
});

test("the Log sinks page shows each sink's state, rows delivered, lag and last error, and follows a sink that comes back", async () => {
  const watched = await browser.open(`${gw.url}/`);
  const { page } = watched;
  await signIn(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Log sinks" }).click();
  const table = page.getByRole("table", { name: "Log sinks" });
  const row = (name: string) => table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: new RegExp(`^${name}`) }) });

  const successes = ((await (await gw.admin("/api/logs?status=success&limit=1")).json()) as { total: number }).total;
  await untilReadAgain(page, row("shipper").getByRole("cell", { name: String(successes), exact: true }), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("shipper").getByText("delivering"), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("shipper").getByText('where status == "success"'), PAGE_REFRESH_MS);

  await untilReadAgain(page, row("collector").getByText("backing off"), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("collector").getByText("the sink answered 503: down for maintenance"), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("collector").getByRole("cell", { name: /^40 rows/ }), PAGE_REFRESH_MS);

  receiver.down = false;
  await untilReadAgain(page, row("collector").getByRole("cell", { name: "40", exact: true }), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("collector").getByText("delivering"), PAGE_REFRESH_MS);
  await untilReadAgain(page, row("collector").getByRole("cell", { name: "0 rows", exact: true }), PAGE_REFRESH_MS);
  expect(receiver.accepted.flatMap((batch) => batch.rows)).toHaveLength(40);
  expect(await seriousViolations(page)).toEqual([]);
  expect(watched.problems()).toEqual([]);
}, 60_000);

test("a sink added on the page gets the rows stored from then on; its secret is never shown back, and it can be deleted there", async () => {
  const watched = await browser.open(`${gw.url}/ui/log-sinks`);
  const { page } = watched;
  const add = page.getByRole("button", { name: "Add log sink" });
  // Signed in already when the test before ran in this browser.
  await page.getByLabel("Username").or(add).waitFor();
  if (await page.getByLabel("Username").isVisible()) await signIn(page);
  await add.click();
  const form = page.getByRole("dialog", { name: "Add a log sink" });
  await form.getByLabel("Name").fill("added");
  await form.getByLabel("URL").fill(`${receiver.url}/added`);
  await form.getByLabel("Signing secret").fill(receiver.secret);
  await form.getByLabel("Allow private networks and plain http").check();
  await form.getByLabel("Filter").fill("status_code >= 0");
  await form.getByRole("button", { name: "Add log sink" }).click();
  const table = page.getByRole("table", { name: "Log sinks" });
  const row = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /^added/ }) });
  await untilReadAgain(page, row.getByText("delivering"), PAGE_REFRESH_MS);

  await recordFacts(gw.databaseUrl, generateFacts(1, new Date()).map((fact) => ({ ...fact, id: "req-added" })));
  await untilReadAgain(page, row.getByRole("cell", { name: "1", exact: true }), PAGE_REFRESH_MS);
  expect(receiver.rowsOn("/added").map((sent) => sent.id)).toHaveLength(1);
  expect(receiver.rejected).toEqual([]);

  await row.getByRole("button", { name: "Edit added" }).click();
  const edit = page.getByRole("dialog", { name: "Edit log sink added" });
  expect(await edit.getByLabel("Signing secret").inputValue()).toBe("");
  expect(await page.content()).not.toContain(receiver.secret);
  await edit.getByRole("button", { name: "Close" }).click();
  // A sink of the configuration has no Edit or Delete.
  const collector = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /^collector/ }) });
  expect(await collector.getByRole("button").count()).toBe(0);

  await row.getByRole("button", { name: "Delete added" }).click();
  await page.getByRole("dialog", { name: "Delete log sink added?" }).getByRole("button", { name: "Delete" }).click();
  await row.waitFor({ state: "detached" });
  expect(await (await gw.admin("/api/log-sinks/added")).json()).toMatchObject({ error: expect.anything() });
  expect(watched.problems()).toEqual([]);
}, 60_000);
