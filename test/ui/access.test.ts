import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seriousViolations } from "../support/axe";
import { type Browser, DASHBOARD_AUTH, launchBrowser, signIn, type WatchedPage } from "../support/browser";
import { startGateway, type TestGateway } from "../support/gateway";

let enterprise: TestGateway;
let oss: TestGateway;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  enterprise = await startGateway({ edition: "enterprise", auth: DASHBOARD_AUTH });
  oss = await startGateway({ auth: DASHBOARD_AUTH });
  browser = await launchBrowser();
  watched = await browser.open(`${enterprise.url}/ui/access`);
  await signIn(watched.page);
});
afterAll(async () => {
  await browser?.close();
  await enterprise?.close();
  await oss?.close();
});

const page = () => watched.page;
const tab = (name: string) => page().getByRole("navigation", { name: "Access sections" }).getByRole("link", { name });

describe("access page", () => {
  test("a role made in the permission matrix, a user holding it, an API key shown once that holds only its scopes, and the audit log verifying itself", async () => {
    await tab("Roles").click();
    await page().getByRole("button", { name: "Create role" }).click();
    const form = page().getByRole("dialog", { name: "Create a role" });
    await form.getByLabel("Role name").fill("auditor");
    const matrix = form.getByRole("table", { name: "Permission matrix" });
    await matrix.getByLabel("AuditLogs:View").check();
    await matrix.getByLabel("Logs:View", { exact: true }).check();
    // Operations beyond the usual four have their columns too.
    await matrix.getByLabel("Prompts:Deploy").check();
    await form.getByRole("button", { name: "Create role" }).click();
    await page().getByRole("table", { name: "Roles" }).getByRole("row", { name: /auditor/ }).getByText(/^3 of \d+$/).waitFor();

    await tab("Users").click();
    await page().getByRole("button", { name: "Add user" }).click();
    const user = page().getByRole("dialog", { name: "Add a user" });
    await user.getByLabel("Username").fill("alice");
    await user.getByLabel("Password").fill("alice-password");
    await user.getByLabel("Role").selectOption({ label: "auditor" });
    await user.getByRole("button", { name: "Add user" }).click();
    await page().getByRole("table", { name: "Users" }).getByRole("cell", { name: "alice", exact: true }).waitFor();

    await tab("API keys").click();
    await page().getByRole("button", { name: "Create API key" }).click();
    const keyForm = page().getByRole("dialog", { name: "Create an API key" });
    await keyForm.getByLabel("Name").fill("ci");
    await keyForm.getByRole("table", { name: "Scopes" }).getByLabel("Logs:View", { exact: true }).check();
    await keyForm.getByRole("button", { name: "Create API key" }).click();
    const key = await page().getByRole("dialog", { name: "API key ci created" }).getByLabel("API key value").innerText();
    await page().getByRole("button", { name: "Done" }).click();
    const asKey = (path: string) => fetch(`${enterprise.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await asKey("/api/logs")).status).toBe(200);
    expect((await asKey("/api/providers")).status).toBe(403);

    await tab("Audit log").click();
    const audit = page().getByRole("table", { name: "Audit log" });
    await audit.getByRole("cell", { name: /^Roles:Create POST/ }).waitFor();
    await audit.getByRole("button", { name: /^Verify the signature of Roles:Create/ }).click();
    await audit.getByText("signature valid").waitFor();
  });

  test("on the open-source edition the enterprise sections are named once, ask nothing of the server, and the admin account is right there", async () => {
    const ossPage = await browser.open(`${oss.url}/ui/access/users`);
    await signIn(ossPage.page);
    const note = ossPage.page.getByRole("note");
    await note.getByRole("heading", { name: "Enterprise edition" }).waitFor();
    await note.getByText("the admin account here is its only sign-in").waitFor();
    const tabs = ossPage.page.getByRole("navigation", { name: "Access sections" }).getByRole("link");
    expect(await tabs.allInnerTexts()).toEqual(["Admin account"]);
    expect(await ossPage.page.getByLabel("Admin username").inputValue()).toBe(DASHBOARD_AUTH.admin_username);
    expect(await seriousViolations(ossPage.page)).toEqual([]);
    expect(ossPage.problems()).toEqual([]);
  });

  test("no page error and no request failed that the user did not cause", () => {
    expect(watched.problems()).toEqual([]);
  });
});
