import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type Browser, launchBrowser, type WatchedPage } from "../support/browser";
import { eventually } from "../support/eventually";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const ADMIN = { username: "admin", password: "dashboard-password" };

let gw: TestGateway;
let upstream: MockOpenAI;
let browser: Browser;
let watched: WatchedPage;
let virtualKey = "";

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/`);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  upstream?.stop();
});

const page = () => watched.page;
const nav = (name: string) => page().getByRole("navigation", { name: "Main" }).getByRole("link", { name });

async function signIn() {
  await page().getByLabel("Username").fill(ADMIN.username);
  await page().getByLabel("Password").fill(ADMIN.password);
  await page().getByRole("button", { name: "Sign in" }).click();
  await page().getByRole("navigation", { name: "Main" }).waitFor();
}

async function chat(text: string, model = "mock/gpt-4o-mini") {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: virtualKey });
  return client.chat.completions.create({ model, messages: [{ role: "user", content: text }] });
}

interface LogList {
  logs: Array<{ id: string; model: string }>;
}
const storedLogs = async () => ((await (await gw.admin("/api/logs?limit=1000", { headers: { authorization: `Bearer ${btoa(`${ADMIN.username}:${ADMIN.password}`)}` } })).json()) as LogList).logs;

describe("the dashboard, as a new operator uses it", () => {
  test("first run: the setup token unlocks it, then the admin account is created and signed in", async () => {
    await page().getByRole("heading", { name: "Welcome" }).waitFor();
    watched.expectFailure("POST", "/api/session/setup", 403);
    await page().getByLabel("Setup token").fill("not-the-token");
    await page().getByRole("button", { name: "Continue" }).click();
    await page().getByText("That is not the setup token").waitFor();

    await page().getByLabel("Setup token").fill(SETUP_TOKEN);
    await page().getByRole("button", { name: "Continue" }).click();
    await page().getByRole("heading", { name: "Create the admin account" }).waitFor();
    await page().getByLabel("Username").fill(ADMIN.username);
    await page().getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page().getByLabel("Repeat password").fill(ADMIN.password);
    await page().getByRole("button", { name: "Create admin and sign in" }).click();
    await page().getByRole("heading", { name: "Overview" }).waitFor();

    // The lock is off: the token no longer opens the management API.
    const withToken = await fetch(`${gw.url}/api/providers`, { headers: { "x-gateway-setup-token": SETUP_TOKEN } });
    expect(withToken.status).toBe(401);
  });

  test("sign out, then sign in again", async () => {
    await page().getByRole("button", { name: "Sign out" }).click();
    await page().getByRole("heading", { name: "Sign in" }).waitFor();
    watched.expectFailure("POST", "/api/session/login", 401);
    await page().getByLabel("Username").fill(ADMIN.username);
    await page().getByLabel("Password").fill("wrong-password");
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByText("Wrong username or password.").waitFor();
    await signIn();
    await page().getByRole("heading", { name: "Overview" }).waitFor();
  });

  test("add a custom provider pointing at the mock upstream", async () => {
    await nav("Providers").click();
    await page().getByRole("heading", { name: "No provider yet" }).waitFor();
    await page().getByRole("button", { name: "Add provider" }).click();
    const panel = page().getByRole("dialog", { name: "Add a provider" });
    await panel.getByLabel("Custom provider").check();
    await panel.getByLabel("Name", { exact: true }).fill("mock");
    await panel.getByLabel("API format").selectOption("openai");
    await panel.getByLabel("Base URL").fill(upstream.baseUrl);
    await panel.getByLabel("Key name").fill("primary");
    await panel.getByLabel("API key").fill("sk-upstream-secret-1234");
    await panel.getByRole("button", { name: "Add provider" }).click();
    const card = page().getByRole("region", { name: "Provider mock" });
    await card.waitFor();
    await card.getByRole("cell", { name: /success/ }).waitFor();
    // The secret is shown redacted, never in full.
    expect(await page().content()).not.toContain("sk-upstream-secret-1234");
  });

  test("create a virtual key: its value is shown once and copied", async () => {
    await nav("Governance").click();
    await page().getByRole("heading", { name: "No virtual key yet" }).waitFor();
    await page().getByRole("button", { name: "Create virtual key" }).click();
    const form = page().getByRole("dialog", { name: "Create a virtual key" });
    await form.getByLabel("Name", { exact: true }).fill("web-app");
    await form.getByLabel("Request limit", { exact: true }).fill("100");
    await form.getByLabel("Request limit resets every").fill("1h");
    await form.getByRole("button", { name: "Create virtual key" }).click();
    const shown = page().getByRole("dialog", { name: "Virtual key web-app created" });
    const value = await shown.getByLabel("Virtual key value").innerText();
    expect(value).toStartWith("sk-gw-");
    await shown.getByRole("button", { name: "Copy key" }).click();
    await shown.getByRole("button", { name: "Copied" }).waitFor();
    virtualKey = (await page().evaluate("navigator.clipboard.readText()")) as string;
    expect(virtualKey).toBe(value);
    await shown.getByRole("button", { name: "Done" }).click();
    await page().getByRole("table", { name: "Virtual keys" }).getByRole("cell", { name: "web-app", exact: true }).waitFor();
    expect(await page().content()).not.toContain(value);
  });

  test("a request made with that key appears in the logs: live, after reload, and in detail with the reply", async () => {
    await nav("Logs").click();
    await page().getByRole("heading", { name: "No requests logged yet" }).waitFor();
    // Live by default.
    await page().getByRole("img", { name: "live updates live" }).waitFor();

    const reply = await chat("hello dashboard");
    expect(reply.choices[0]!.message.content).toBe("echo: hello dashboard");
    const table = page().getByRole("table", { name: "Request logs" });
    await table.getByRole("cell", { name: "web-app", exact: true }).waitFor();

    await page().reload();
    await table.getByRole("cell", { name: "web-app", exact: true }).waitFor();
    await table.getByRole("button", { name: /open request/ }).first().click();
    const detail = page().getByRole("dialog", { name: "Request detail" });
    await detail.getByRole("region", { name: "Response" }).getByText("echo: hello dashboard").waitFor();
    await detail.getByRole("region", { name: "Request" }).getByText("hello dashboard", { exact: false }).first().waitFor();
    await detail.getByRole("button", { name: "Close" }).click();
  });

  test("the overview counts the request, and ranks its model and its virtual key", async () => {
    const calls: string[] = [];
    const record = (request: { url(): string }) => calls.push(new URL(request.url()).pathname + new URL(request.url()).search);
    page().on("request", record);
    await nav("Overview").click();
    // Playwright waits for the figure itself, exactly "1", rather than the test polling the region's text.
    await page().getByRole("region", { name: "Requests", exact: true }).getByText("1", { exact: true }).waitFor();
    await page().getByRole("region", { name: "Top models" }).getByRole("cell", { name: "mock/gpt-4o-mini", exact: true }).waitFor();
    await page().getByRole("region", { name: "Top virtual keys" }).getByRole("cell", { name: "web-app", exact: true }).waitFor();
    page().off("request", record);
    // One ranking by virtual key, not a stats read per key.
    expect(calls.filter((call) => call.includes("group_by=virtual_key"))).toHaveLength(1);
    expect(calls.filter((call) => call.startsWith("/api/logs/stats"))).toHaveLength(1);
  });

  test("a routing rule whose CEL does not compile shows the error at the condition and is not saved", async () => {
    await nav("Governance").click();
    await page().getByRole("navigation", { name: "Governance sections" }).getByRole("link", { name: "Routing rules" }).click();
    await page().getByRole("heading", { name: "No routing rule yet" }).waitFor();
    await page().getByRole("button", { name: "Create routing rule" }).click();
    const form = page().getByRole("dialog", { name: "Create a routing rule" });
    await form.getByLabel("Name", { exact: true }).fill("broken");
    await form.getByLabel("Condition (CEL)").fill('model == "gpt-4o" &&');
    watched.expectFailure("POST", "/api/governance/routing-rules", 400);
    await form.getByRole("button", { name: "Save rule" }).click();
    const condition = form.getByLabel("Condition (CEL)");
    await eventually(() => condition.getAttribute("aria-invalid"), (value) => value === "true");
    const describedBy = (await condition.getAttribute("aria-describedby"))!;
    expect(await form.locator(`[id="${describedBy}"]`).innerText()).toMatch(/cel|expression|syntax|unexpected/i);
    await form.getByRole("button", { name: "Close" }).click();
    await page().getByRole("heading", { name: "No routing rule yet" }).waitFor();
    const stored = await gw.admin("/api/governance/routing-rules", { headers: { authorization: `Bearer ${btoa(`${ADMIN.username}:${ADMIN.password}`)}` } });
    expect(((await stored.json()) as { rules: unknown[] }).rules).toEqual([]);
  });

  test("deleting the logs matching a filter removes exactly those", async () => {
    await chat("keep me");
    await chat("remove me", "mock/gpt-4.1");
    await chat("remove me too", "mock/gpt-4.1");
    await eventually(storedLogs, (logs) => logs.length === 4);
    await nav("Logs").click();
    await page().getByLabel("Model", { exact: true }).selectOption("gpt-4.1");
    await page().getByRole("button", { name: "Apply filters" }).click();
    const table = page().getByRole("table", { name: "Request logs" });
    await eventually(() => table.getByRole("row").count(), (rows) => rows === 3);
    await page().getByRole("button", { name: "Delete all matching" }).click();
    const dialog = page().getByRole("dialog", { name: "Delete all matching logs?" });
    await dialog.getByText("models").waitFor();
    await dialog.getByRole("button", { name: "Delete all matching" }).click();
    await page().getByText("Deleted 2 logs").waitFor();
    await page().getByRole("heading", { name: "No request matches these filters" }).waitFor();
    const left = await storedLogs();
    // A virtual key id in a shared URL that names no key is still shown, and narrows to nothing.
    await page().goto(`${gw.url}/ui/logs?virtual_key_ids=no-such-key`);
    await page().getByRole("heading", { name: "No request matches these filters" }).waitFor();
    expect(await page().getByLabel("Virtual key", { exact: true }).inputValue()).toBe("no-such-key");

    // A row ticked and deleted is the only one gone.
    await page().getByRole("button", { name: "Clear" }).click();
    const [kept, removed] = await storedLogs();
    await table.getByRole("checkbox", { name: `Select request ${removed!.id}` }).check();
    await page().getByRole("button", { name: "Delete selected (1)" }).click();
    await page().getByRole("dialog", { name: "Delete 1 request log?" }).getByRole("button", { name: "Delete" }).click();
    await page().getByText("Deleted 1 log").waitFor();
    expect((await storedLogs()).map((log) => log.id)).toEqual([kept!.id]);
    expect(left.map((log) => log.model).sort()).toEqual(["gpt-4o-mini", "gpt-4o-mini"]);
  });

  test("an ended session goes back to sign-in, then to the same page", async () => {
    await nav("Providers").click();
    await page().getByRole("region", { name: "Provider mock" }).waitFor();
    await browser.context.clearCookies();
    for (const path of ["/api/governance/virtual-keys", "/api/governance/budgets", "/api/governance/rate-limits"]) watched.expectFailure("GET", path, 401);
    await nav("Governance").click();
    await page().getByText("Your session ended").waitFor();
    await signIn();
    expect(new URL(page().url()).pathname).toBe("/ui/governance");
    const keys = page().getByRole("table", { name: "Virtual keys" });
    await keys.getByRole("cell", { name: "web-app", exact: true }).waitFor();
    // The key's rate limit shows how much of its window the requests made above used.
    const bar = keys.getByRole("progressbar", { name: "Requests per hour" });
    expect(await bar.getAttribute("aria-valuemax")).toBe("100");
    expect(Number(await bar.getAttribute("aria-valuenow"))).toBe(4);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
