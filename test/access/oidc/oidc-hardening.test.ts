import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { startMockOidcProvider, type MockOidcProvider } from "../../support/mock-oidc-provider";
import { AUTH_CONFIG, call } from "../access-client";
import { signInOverHttp, withSession } from "./sign-in-flow";

const SECRET_ENV = "TEST_OIDC_HARDENING_SECRET";
const ADA = { sub: "ada-1", email: "ada@example.com", groups: ["gateway-admins"] };

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(";")[0];

describe("OIDC sign-in: return paths, single-use state, refusals", () => {
  let idp: MockOidcProvider;
  let gw: TestGateway;
  beforeAll(async () => {
    idp = await startMockOidcProvider();
    process.env[SECRET_ENV] = idp.clientSecret;
    gw = await startGateway({
      edition: "enterprise",
      auth: AUTH_CONFIG,
      oidc: { providers: { corp: { issuer: idp.issuer, client_id: idp.clientId, client_secret: `env.${SECRET_ENV}`, roles: [{ claim: "groups", value: "gateway-admins", role: "Admin" }] } } },
    });
  });
  afterAll(async () => {
    await gw.close();
    idp.stop();
  });
  beforeEach(() => {
    idp.user = { ...ADA };
  });

  /** Where the signed-in page sends the browser, as the browser reads it against the gateway. */
  const landing = (page: string) => new URL(/url=([^"]*)"/.exec(page)![1]!, gw.url);

  for (const returnTo of ["/\t/evil.example.com/", "/\n/evil.example.com/", "/\\evil.example.com/", "//evil.example.com/", "/\\/evil.example.com", "https://evil.example.com/", "/\r\n/evil.example.com"]) {
    test(`return_to ${JSON.stringify(returnTo)} lands on the gateway, not another site`, async () => {
      const { response, page } = await signInOverHttp(gw, "corp", returnTo);
      expect(response.status).toBe(200);
      expect(landing(page).origin).toBe(gw.url);
    });
  }

  test("a path on the gateway, with its query and fragment, is where the browser lands", async () => {
    const { page } = await signInOverHttp(gw, "corp", "/ui/logs?status=error#latest");
    const url = landing(page);
    expect(url.origin).toBe(gw.url);
    expect(`${url.pathname}${url.search}${url.hash}`).toBe("/ui/logs?status=error#latest");
  });

  test("a login cookie replayed with a fresh code for the same authorization request opens no second session", async () => {
    const login = await fetch(`${gw.url}/api/session/oidc/corp/login`, { redirect: "manual" });
    const pending = cookieOf(login, "gateway_oidc_login")!;
    const authorizeUrl = login.headers.get("location")!;
    // The provider signs the person in again for the same request: a second code for the same state and challenge.
    const [first, second] = await Promise.all([fetch(authorizeUrl, { redirect: "manual" }), fetch(authorizeUrl, { redirect: "manual" })]);
    const used = await fetch(first.headers.get("location")!, { redirect: "manual", headers: { cookie: pending } });
    expect(used.status).toBe(200);
    expect(cookieOf(used, "gateway_session")).toBeDefined();
    const replayed = await fetch(second.headers.get("location")!, { redirect: "manual", headers: { cookie: pending } });
    expect(replayed.status).toBe(401);
    expect(await replayed.text()).toContain("already completed");
    expect(cookieOf(replayed, "gateway_session")?.replace(/^gateway_session=/, "") ?? "").toBe("");
  });

  test("the same replay sent to another node of the database is refused too", async () => {
    const other = await gw.restart();
    try {
      const login = await fetch(`${gw.url}/api/session/oidc/corp/login`, { redirect: "manual" });
      const pending = cookieOf(login, "gateway_oidc_login")!;
      const authorizeUrl = login.headers.get("location")!;
      const [first, second] = await Promise.all([fetch(authorizeUrl, { redirect: "manual" }), fetch(authorizeUrl, { redirect: "manual" })]);
      expect((await fetch(first.headers.get("location")!, { redirect: "manual", headers: { cookie: pending } })).status).toBe(200);
      // Behind one address, as a load balancer spreads the nodes: the callback URI is the same on both.
      const onOtherNode = second.headers.get("location")!.replace(gw.url, other.url);
      const replayed = await fetch(onOtherNode, { redirect: "manual", headers: { cookie: pending, host: new URL(gw.url).host } });
      expect(replayed.status).toBe(401);
      expect(await replayed.text()).toContain("already completed");
    } finally {
      await other.stop();
    }
  });

  test("someone refused at a later sign-in (their group was taken away) loses the session they had", async () => {
    idp.user = { sub: "leaver-2", email: "lee@example.com", groups: ["gateway-admins"] };
    const { session } = await signInOverHttp(gw, "corp");
    expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(200);
    idp.user = { ...idp.user, groups: ["marketing"] };
    const refused = await signInOverHttp(gw, "corp");
    expect(refused.response.status).toBe(403);
    expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(401);
    // Someone else's session is not touched.
    idp.user = { ...ADA };
    const ada = await signInOverHttp(gw, "corp");
    idp.user = { sub: "outsider-9", groups: ["marketing"] };
    await signInOverHttp(gw, "corp");
    expect((await call(gw, "/api/providers", withSession(ada.session!))).status).toBe(200);
  });
});
