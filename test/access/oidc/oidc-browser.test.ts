import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Browser, launchBrowser } from "../../support/browser";
import { startGateway, type TestGateway } from "../../support/gateway";
import { startMockOidcProvider, type MockOidcProvider } from "../../support/mock-oidc-provider";

const SECRET_ENV = "TEST_OIDC_BROWSER_CLIENT_SECRET";

describe("OIDC sign-in in a browser", () => {
  let idp: MockOidcProvider;
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    idp = await startMockOidcProvider();
    process.env[SECRET_ENV] = idp.clientSecret;
    gw = await startGateway({
      oidc: { providers: { corp: { issuer: idp.issuer, client_id: idp.clientId, client_secret: `env.${SECRET_ENV}`, roles: [{ claim: "groups", value: "gateway-admins", role: "Admin" }] } } },
    });
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser.close();
    await gw.close();
    idp.stop();
  });

  test("the browser follows login → provider → callback and then holds a session the management API accepts", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${gw.url}/api/session/oidc/corp/login?return_to=${encodeURIComponent("/api/session/is-auth-enabled")}`);
    await page.waitForURL(`${gw.url}/api/session/is-auth-enabled`);
    expect(JSON.parse((await page.textContent("body"))!)).toEqual({ is_auth_enabled: true, has_valid_token: true });
    const cookies = await browser.context.cookies(gw.url);
    expect(cookies.find((cookie) => cookie.name === "gateway_session")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    const providers = await page.evaluate(async () => (await fetch("/api/providers")).status);
    expect(providers).toBe(200);
  }, 30_000);

  test("someone whose groups map to no role sees a page saying so", async () => {
    idp.user = { sub: "outsider", email: "eve@example.com", groups: ["marketing"] };
    const page = await browser.context.newPage();
    await browser.context.clearCookies();
    const response = await page.goto(`${gw.url}/api/session/oidc/corp/login`);
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Sign-in refused" }).isVisible()).resolves.toBe(true);
    expect(await page.textContent("body")).toContain("no role in this gateway");
  }, 30_000);
});
