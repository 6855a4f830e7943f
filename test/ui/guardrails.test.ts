import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { openAIProvider } from "../governance/support";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const EMAIL = "jane.doe@example.com";

let upstream: MockOpenAI;
let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ auth: DASHBOARD_AUTH, providers: { openai: openAIProvider(upstream) } });
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/guardrails`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;
const chat = (content: string) =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const lastUpstreamText = () => JSON.stringify(upstream.requests.at(-1)!.body.messages);

describe("Guardrails page", () => {
  test("a policy made on the page redacts emails before the upstream sees them; a bad regex is shown at its field", async () => {
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Guardrails" }).click();
    await page().getByRole("heading", { name: "No guardrail yet" }).waitFor();
    await page().getByRole("button", { name: "Add guardrail" }).click();
    const form = page().getByRole("dialog", { name: "Add a guardrail" });
    await form.getByLabel("Name").fill("no-emails");
    await form.getByLabel("Applies to").selectOption("global");
    const first = form.getByRole("group", { name: "Check 1" });
    await first.getByLabel("Type").selectOption("email");
    await first.getByLabel("Stage").selectOption("input");
    await first.getByLabel("Action").selectOption("redact");

    await form.getByRole("button", { name: "Add check" }).click();
    const second = form.getByRole("group", { name: "Check 2" });
    await second.getByLabel("Type").selectOption("regex");
    await second.getByLabel("Pattern").fill("ORDER-([0-9");
    watched.expectFailure("POST", "/api/guardrails", 400);
    await form.getByRole("button", { name: "Add guardrail" }).click();
    const patternError = second.getByRole("alert");
    await patternError.waitFor();
    expect(await patternError.textContent()).toContain("checks[1].pattern");
    expect(await form.getByLabel("Pattern").getAttribute("aria-invalid")).toBe("true");

    await second.getByLabel("Pattern").fill("ORDER-[0-9]+");
    await second.getByLabel("Placeholder label").fill("ORDER");
    await second.getByLabel("Action").selectOption("redact");
    await second.getByLabel("Stage").selectOption("input");
    await form.getByRole("button", { name: "Add guardrail" }).click();
    await form.waitFor({ state: "detached" });

    const row = page().getByRole("table", { name: "Guardrails" }).getByRole("row", { name: /no-emails/ });
    await row.getByText("Email address: redact on input").waitFor();
    await row.getByText("Custom regex: redact on input").waitFor();
    await row.getByText("enabled", { exact: true }).waitFor();

    await chat(`Mail ${EMAIL} about ORDER-1234.`);
    expect(lastUpstreamText()).toContain("Mail [EMAIL_1] about [ORDER_1].");
    expect(lastUpstreamText()).not.toContain(EMAIL);
  });

  test("a disabled policy lets the text through, an edited one runs its new checks, a deleted one is gone", async () => {
    const row = page().getByRole("table", { name: "Guardrails" }).getByRole("row", { name: /no-emails/ });
    await row.getByRole("button", { name: "Disable no-emails" }).click();
    await row.getByText("disabled", { exact: true }).waitFor();
    await chat(`Mail ${EMAIL}.`);
    expect(lastUpstreamText()).toContain(`Mail ${EMAIL}.`);

    await row.getByRole("button", { name: "Edit no-emails" }).click();
    const form = page().getByRole("dialog", { name: "Edit guardrail no-emails" });
    await form.getByLabel("Enabled").check();
    await form.getByRole("button", { name: "Remove check 2" }).click();
    await form.getByRole("group", { name: "Check 1" }).getByLabel("Action").selectOption("block");
    await form.getByRole("button", { name: "Save guardrail" }).click();
    await form.waitFor({ state: "detached" });
    await row.getByText("Email address: block on input").waitFor();
    expect(await row.getByText("Custom regex").count()).toBe(0);
    const sent = upstream.requests.length;
    const blocked = await chat(`Mail ${EMAIL}.`).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(OpenAI.APIError);
    expect(upstream.requests.length).toBe(sent);

    await row.getByRole("button", { name: "Delete no-emails" }).click();
    await page().getByRole("dialog", { name: "Delete guardrail no-emails?" }).getByRole("button", { name: "Delete" }).click();
    await page().getByRole("heading", { name: "No guardrail yet" }).waitFor();
    const listed = await page().request.get(`${gw.url}/api/guardrails`);
    expect((await listed.json()).guardrails).toEqual([]);
    await chat(`Mail ${EMAIL}.`);
    expect(lastUpstreamText()).toContain(`Mail ${EMAIL}.`);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
