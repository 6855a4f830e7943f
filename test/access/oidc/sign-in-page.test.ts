import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Browser, DASHBOARD_AUTH, launchBrowser } from "../../support/browser";
import { startGateway, type TestGateway } from "../../support/gateway";
import { type MockOidcProvider, startMockOidcProvider } from "../../support/mock-oidc-provider";

const SECRET_ENV = "TEST_OIDC_SIGN_IN_PAGE_CLIENT_SECRET";

describe("the dashboard's sign-in page with identity providers", () => {
  let idp: MockOidcProvider;
  let withPassword: TestGateway;
  let providersOnly: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    idp = await startMockOidcProvider();
    process.env[SECRET_ENV] = idp.clientSecret;
    const corp = { issuer: idp.issuer, client_id: idp.clientId, client_secret: `env.${SECRET_ENV}`, display_name: "Corp SSO", roles: [{ claim: "groups", value: "gateway-admins", role: "Admin" }] };
    withPassword = await startGateway({ auth: DASHBOARD_AUTH, oidc: { providers: { corp } } });
    providersOnly = await startGateway({ oidc: { providers: { corp }, password_sign_in: false } });
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser.close();
    await withPassword.close();
    await providersOnly.close();
    idp.stop();
  });

  test("a button per provider signs in through the provider and lands on the page the person asked for", async () => {
    const watched = await browser.open(`${withPassword.url}/ui/mcp`);
    const page = watched.page;
    const button = page.getByRole("navigation", { name: "Sign in with your organization" }).getByRole("link", { name: "Sign in with Corp SSO" });
    await button.waitFor();
    await page.getByLabel("Password").waitFor();
    await button.click();
    await page.waitForURL(`${withPassword.url}/ui/mcp`);
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    await page.getByRole("heading", { name: "MCP", exact: true }).waitFor();
    expect(watched.problems()).toEqual([]);
  }, 30_000);

  test("with password sign-in off, the page offers only the providers", async () => {
    await browser.context.clearCookies();
    const watched = await browser.open(`${providersOnly.url}/ui/logs`);
    const page = watched.page;
    await page.getByRole("link", { name: "Sign in with Corp SSO" }).waitFor();
    await page.getByText("Sign in with your organization's account.").waitFor();
    expect(await page.getByLabel("Password").count()).toBe(0);
    expect(await page.getByRole("form", { name: "Account sign-in" }).count()).toBe(0);
    expect(watched.problems()).toEqual([]);
  }, 30_000);
});
