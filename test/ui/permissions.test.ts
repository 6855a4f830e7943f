import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, json, permissionIds } from "../access/access-client";
import { type Browser, launchBrowser, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";

const USER = { username: "reader", password: "reader-password" };

let gw: TestGateway;
let browser: Browser;
let watched: WatchedPage;
let roleId = 0;

async function grant(...permissions: string[]) {
  const response = await gw.admin(`/api/governance/rbac/roles/${roleId}/permissions`, { method: "PUT", json: { permission_ids: await permissionIds(gw, ...permissions) } });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
  const role = await json<{ id: number }>(await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name: "reader", permission_ids: [] } }), 201);
  roleId = role.id;
  await grant("Logs:View", "ModelProvider:View", "MCPVirtualServers:View", "LogSinks:View");
  await json(await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: USER.username, role_id: role.id, password: USER.password } }), 201);
  await json(await gw.admin("/api/providers", { method: "POST", json: { provider: "openai", keys: [{ id: "k1", name: "main", value: "sk-test", models: ["*"] }] } }), 201);
  browser = await launchBrowser();
  watched = await browser.open(`${gw.url}/ui/logs`);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const page = () => watched.page;

describe("what a user may not use is hidden, and a refusal reads as one", () => {
  test("a reader signs in and sees only the pages their role opens, without write buttons", async () => {
    await page().getByLabel("Username").fill(USER.username);
    await page().getByLabel("Password").fill(USER.password);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { name: "Logs" }).waitFor();
    const links = await page().getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
    expect(links).toEqual(["Overview", "Logs", "Analytics", "Providers", "Virtual servers", "Log sinks"]);
    expect(await page().getByRole("button", { name: /Delete/ }).count()).toBe(0);

    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Providers" }).click();
    await page().getByRole("region", { name: "Provider openai" }).waitFor();
    expect(await page().getByRole("button", { name: "Add provider" }).count()).toBe(0);
    expect(await page().getByRole("button", { name: /Delete/ }).count()).toBe(0);
    expect(await page().getByRole("button", { name: "Test key main" }).isDisabled()).toBe(true);

    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Virtual servers" }).click();
    await page().getByRole("heading", { name: "No virtual server yet" }).waitFor();
    expect(await page().getByRole("button", { name: "Add virtual server" }).count()).toBe(0);
  });

  test("a page the role does not open says so", async () => {
    await page().goto(`${gw.url}/ui/governance`);
    await page().getByRole("heading", { name: "No access" }).waitFor();
    expect(await page().getByRole("alert").innerText()).toContain("VirtualKeys:View");
  });

  test("a 403 from the API (the role changed meanwhile) shows as no access, not as a blank page", async () => {
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click();
    await page().getByRole("region", { name: "Requests", exact: true }).waitFor();
    await grant("ModelProvider:View");
    for (const path of ["/api/logs/stats", "/api/logs/histogram", "/api/logs/histogram", "/api/logs/rankings", "/api/logs/rankings"]) watched.expectFailure("GET", path, 403);
    await page().getByRole("button", { name: "Refresh" }).click();
    await page().getByRole("heading", { name: "No access" }).waitFor();
    expect(await page().getByRole("alert").innerText()).toContain("Logs:View");
  });

  test("Guardrails:View shows the policies without a button to change them", async () => {
    await json(await gw.admin("/api/guardrails", { method: "POST", json: { name: "no-cards", checks: [{ type: "payment_card", action: "block" }] } }), 201);
    await grant("ModelProvider:View", "Guardrails:View");
    await page().goto(`${gw.url}/ui/guardrails`);
    await page().getByRole("table", { name: "Guardrails" }).getByRole("row", { name: /no-cards/ }).waitFor();
    for (const name of ["Add guardrail", "Edit no-cards", "Disable no-cards", "Delete no-cards"]) expect(await page().getByRole("button", { name }).count()).toBe(0);
  });

  test("Prompts:View and Prompts:Edit open the editor, without the form that moves a label or a run (Playground:Create)", async () => {
    await json(await gw.admin("/api/prompts", { method: "POST", json: { name: "greeting", messages: [{ role: "user", content: "Hello {{who}}" }] } }), 201);
    await grant("Prompts:View", "Prompts:Edit");
    await page().goto(`${gw.url}/ui/prompts`);
    await page().getByRole("link", { name: "greeting" }).waitFor();
    expect(await page().getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts()).toEqual(["Prompts"]);
    await page().getByRole("link", { name: "greeting" }).click();
    await page().getByRole("button", { name: "New version" }).waitFor();
    expect(await page().getByRole("form", { name: "Move a label" }).count()).toBe(0);
    expect(await page().getByRole("button", { name: /Promote|Roll back/ }).count()).toBe(0);
    expect(await page().getByRole("button", { name: "Run", exact: true }).count()).toBe(0);
    await grant("Prompts:View", "Prompts:Deploy");
    await page().reload();
    await page().getByRole("form", { name: "Move a label" }).getByRole("button", { name: "Promote" }).waitFor();
    expect(await page().getByRole("button", { name: "New version" }).count()).toBe(0);
  });

  test("a page whose side area needs another permission shows the page and says what that area needs, without asking the API", async () => {
    await grant("Webhooks:View", "Plugins:View", "VirtualKeys:View", "VirtualKeys:Create");
    await page().goto(`${gw.url}/ui/webhooks`);
    await page().getByRole("heading", { name: "No webhook endpoint yet" }).waitFor();
    await page().getByRole("region", { name: "Async jobs" }).getByText("needs the permission Logs:View").waitFor();

    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Plugins" }).click();
    await page().getByRole("region", { name: "Plugin logging" }).waitFor();
    await page().getByRole("region", { name: "Response cache" }).getByText("your role may not read (Logs:View)").waitFor();

    // The key form offers teams, customers and providers only from the lists the role may read.
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Governance" }).click();
    await page().getByRole("button", { name: "Create virtual key" }).click();
    await page().getByRole("dialog", { name: "Create a virtual key" }).getByLabel("Name", { exact: true }).waitFor();
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
