import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn } from "../support/browser";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";

// A request the gateway refuses before routing it is on the logs page with its error, so an
// operator can see why a client fails.

let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  gw = await startGateway({ auth: DASHBOARD_AUTH });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

test("a refused request is a row on the logs page, and its detail shows the error", async () => {
  const refused = await fetch(`${gw.url}/anthropic/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "anthropic/claude-sonnet-4-5", max_tokens: 0, messages: [{ role: "user", content: "hi" }] }),
  });
  expect(refused.status).toBe(400);
  await eventually(async () => ((await (await gw.admin("/api/logs")).json()) as { logs: unknown[] }).logs.length, (count) => count === 1);

  const { page, problems } = await browser.open(`${gw.url}/ui/logs`);
  await signIn(page);
  const table = page.getByRole("table", { name: "Request logs" });
  const row = table.getByRole("row").filter({ hasText: "claude-sonnet-4-5" });
  await row.getByText("error", { exact: false }).first().waitFor();
  await row.getByRole("button", { name: /open request/ }).click();
  const detail = page.getByRole("dialog", { name: "Request detail" });
  await detail.getByRole("region", { name: "Error" }).getByText("caller_invalid_request: max_tokens must be an integer of at least 1").waitFor();
  await detail.getByText("400", { exact: true }).waitFor();
  expect(problems()).toEqual([]);
}, 30_000);
