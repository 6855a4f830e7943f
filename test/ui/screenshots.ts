/**
 * `bun run screenshots`: a gateway with example data, every dashboard page in light and dark,
 * written to docs/screenshots/ (page-scheme.png), plus the overview at phone width.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { launchBrowser } from "../support/browser";
import { startGateway } from "../support/gateway";
import { startMockOpenAI } from "../support/mock-openai";
import { loadExampleData } from "./example-data";

const OUT = join(import.meta.dir, "../../docs/screenshots");
const ADMIN = { username: "admin", password: "example-password" };
const auth = btoa(`${ADMIN.username}:${ADMIN.password}`);

const upstream = startMockOpenAI();
const gw = await startGateway({ auth: { admin_username: ADMIN.username, admin_password: ADMIN.password } });
const example = await loadExampleData(gw, upstream, auth);
for (const [index, text] of ["What changed in the last release?", "Draft a reply to ticket 4812", "Classify: refund request", "Translate to German: good morning"].entries()) {
  const key = example.virtualKeys[index % example.virtualKeys.length]!;
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value });
  await client.chat.completions.create({ model: index % 2 ? "openai/gpt-4o-mini" : "mock/llama-3.1-70b", messages: [{ role: "user", content: text }] }).catch(() => undefined);
}
// Async jobs for the webhooks page: two answered, one the gateway could not route.
const jobs = [
  { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Summarise ticket 4812 overnight" }] },
  { model: "mock/llama-3.1-70b", messages: [{ role: "user", content: "Tag these 40 reviews by sentiment" }] },
  { model: "retired/gpt-3", messages: [{ role: "user", content: "Classify: refund request" }] },
];
for (const body of jobs) {
  const job = await submittedJob(gw, "chat/completions", body, { authorization: `Bearer ${example.virtualKeys[0]!.value}` });
  await finishedJob(gw, "chat/completions", job.id, { authorization: `Bearer ${example.virtualKeys[0]!.value}` });
}
mkdirSync(OUT, { recursive: true });

const settle = (page: Page) => page.waitForLoadState("networkidle").catch(() => undefined);

async function shoot(page: Page, name: string, scheme: string, fullPage = false) {
  await settle(page);
  await page.waitForTimeout(300);
  const path = join(OUT, `${name}-${scheme}.png`);
  await page.screenshot({ path, fullPage });
  console.log(`wrote ${path}`);
}

const VIEWPORT = { width: 1280, height: 860 };

/** Each page, what shows it is ready, and whether the whole page is pictured (below the fold too). */
const PAGES: Array<[name: string, path: string, ready: (page: Page) => Promise<unknown>, fullPage?: boolean]> = [
  ["overview", "/", (page) => page.getByRole("figure").first().waitFor()],
  ["analytics", "/ui/analytics", (page) => page.getByRole("region", { name: "By model" }).waitFor()],
  ["logs", "/ui/logs", (page) => page.getByRole("table", { name: "Request logs" }).waitFor()],
  ["providers", "/ui/providers", (page) => page.getByRole("region", { name: "Provider openai" }).waitFor()],
  ["virtual-keys", "/ui/governance/virtual-keys", (page) => page.getByRole("table", { name: "Virtual keys" }).waitFor()],
  ["limits", "/ui/governance/limits", (page) => page.getByRole("heading", { name: "Budgets" }).waitFor()],
  ["routing-rules", "/ui/governance/routing-rules", (page) => page.getByRole("table", { name: "Routing rules" }).waitFor()],
  ["guardrails", "/ui/guardrails", (page) => page.getByRole("table", { name: "Guardrails" }).waitFor()],
  ["mcp", "/ui/mcp", (page) => page.getByRole("heading", { name: "MCP", exact: true }).waitFor()],
  ["agents", "/ui/agents", (page) => page.getByRole("heading", { name: "Agents", exact: true }).waitFor()],
  ["webhooks", "/ui/webhooks", (page) => page.getByRole("table", { name: "Async jobs" }).getByText("failed", { exact: true }).waitFor(), true],
  ["log-sinks", "/ui/log-sinks", (page) => page.getByRole("heading", { name: "Log sinks", exact: true }).waitFor()],
  ["alerts", "/ui/alerts", (page) => page.getByRole("table", { name: "Alert rules" }).waitFor()],
  ["plugins", "/ui/plugins", (page) => page.getByRole("region", { name: "Plugin response_cache" }).waitFor()],
  ["access", "/ui/access", (page) => page.getByRole("heading", { name: "Access", exact: true }).waitFor()],
  [
    "lifecycles",
    "/ui/lifecycles",
    async (page) => {
      // The async job's chart: nested states, and the jobs above standing in them.
      await page.getByLabel("Kind").selectOption("async-job");
      await page.getByRole("img", { name: "Statechart of async-job" }).getByRole("button", { name: /^completed\.retained: [1-9]/ }).waitFor();
    },
  ],
  ["warp-settings", "/ui/warp", (page) => page.getByRole("form", { name: "Warp settings" }).waitFor()],
  [
    "playground",
    "/ui/playground",
    async (page) => {
      // One prompt against two models, both answered with their figures.
      await page.getByRole("combobox", { name: "Model 1" }).fill("openai/gpt-4o-mini");
      await page.getByRole("button", { name: "Compare with another model" }).click();
      await page.getByRole("combobox", { name: "Model 2" }).fill("mock/llama-3.1-70b");
      await page.getByLabel("System prompt").fill("You answer support tickets in one sentence.");
      await page.getByLabel("Prompt", { exact: true }).fill("Summarise ticket 4812: the customer was charged twice.");
      await page.getByLabel("Temperature").fill("0.3");
      await page.getByRole("button", { name: "Run" }).click();
      for (const model of ["openai/gpt-4o-mini", "mock/llama-3.1-70b"]) await page.getByRole("region", { name: `Answer from ${model}` }).getByRole("row", { name: /^Cost/ }).waitFor();
    },
    true,
  ],
];

try {
  for (const scheme of ["light", "dark"] as const) {
    const browser = await launchBrowser({ colorScheme: scheme, viewport: VIEWPORT });
    const { page } = await browser.open(`${gw.url}/`);
    await page.getByLabel("Username").fill(ADMIN.username);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    for (const [name, path, ready, fullPage] of PAGES) {
      await page.goto(`${gw.url}${path}`);
      await ready(page);
      await shoot(page, name, scheme, fullPage);
    }
    await page.goto(`${gw.url}/ui/logs`);
    await page.getByRole("button", { name: /open request/ }).first().click();
    await page.getByRole("dialog", { name: "Request detail" }).getByRole("region", { name: "Response" }).waitFor();
    await shoot(page, "log-detail", scheme);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${gw.url}/`);
    await page.getByRole("figure").first().waitFor();
    await shoot(page, "overview-phone", scheme);
    await page.goto(`${gw.url}/ui/logs`);
    await page.getByRole("table", { name: "Request logs" }).waitFor();
    await shoot(page, "logs-phone", scheme);
    await page.context().clearCookies();
    await page.goto(`${gw.url}/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.setViewportSize(VIEWPORT);
    await shoot(page, "sign-in", scheme);
    await browser.close();
  }
} finally {
  await gw.close();
  upstream.stop();
}
