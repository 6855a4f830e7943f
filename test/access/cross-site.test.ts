import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { AUTH_CONFIG, ADMIN, bearer, call, cookieValue, login, setCookie } from "./access-client";

/** A page on another port of the same host: same site to the browser, another origin. */
const OTHER_PORT_ORIGIN = "http://127.0.0.1:1";

describe("writes authenticated by the session cookie come only from the gateway's own pages", () => {
  let gw: TestGateway;
  let session: string;
  let keyId: string;
  beforeAll(async () => {
    gw = await startGateway({ auth: AUTH_CONFIG });
    session = await login(gw, ADMIN.username, ADMIN.password);
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "rotated-by-whom" } });
    keyId = ((await created.json()) as { virtual_key: { id: string } }).virtual_key.id;
  });
  afterAll(() => gw.close());

  const rotate = (headers: Record<string, string>) => call(gw, `/api/governance/virtual-keys/${keyId}/rotate`, { method: "POST", headers });
  const withCookie = (extra: Record<string, string> = {}) => ({ cookie: `gateway_session=${session}`, ...extra });

  test("a form on another port of the same host cannot rotate a key with the admin's cookie", async () => {
    // What a browser sends for a cross-origin form post: the cookie (SameSite=Strict does not separate ports) and the page's origin.
    await expectGatewayError(await rotate(withCookie({ origin: OTHER_PORT_ORIGIN })), 403, { errorType: "caller_cross_origin_request" });
    await expectGatewayError(await rotate(withCookie({ origin: OTHER_PORT_ORIGIN, "sec-fetch-site": "same-site" })), 403, { errorType: "caller_cross_origin_request" });
    // A request saying nothing of where it came from is refused too.
    await expectGatewayError(await rotate(withCookie()), 403, { errorType: "caller_cross_origin_request" });
    await expectGatewayError(await rotate(withCookie({ "sec-fetch-site": "cross-site", origin: gw.url })), 403);
  });

  test("the dashboard's own writes pass: its origin, or Sec-Fetch-Site: same-origin", async () => {
    expect((await rotate(withCookie({ origin: gw.url }))).status).toBe(200);
    expect((await rotate(withCookie({ "sec-fetch-site": "same-origin" }))).status).toBe(200);
    // Behind a proxy that terminates TLS and says so, the browser's origin is the proxy's.
    expect((await rotate(withCookie({ origin: "https://gateway.example.com", "x-forwarded-proto": "https", "x-forwarded-host": "gateway.example.com" }))).status).toBe(200);
  });

  test("reads with the cookie, and writes with a bearer token, need no origin", async () => {
    expect((await call(gw, "/api/governance/virtual-keys", { headers: withCookie() })).status).toBe(200);
    expect((await rotate(bearer(session))).status).toBe(200);
    expect((await rotate({ ...bearer(session), origin: OTHER_PORT_ORIGIN })).status).toBe(200);
  });

  test("a JSON route refuses a form body, with or without the cookie (415 naming the content type)", async () => {
    const form = (headers: Record<string, string>, path = "/api/governance/virtual-keys", body = "name=from-a-form") =>
      fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });
    await expectGatewayError(await form(withCookie({ origin: gw.url })), 415, { param: "content-type", errorType: "caller_unsupported_media_type" });
    await expectGatewayError(await form(bearer(session)), 415, { param: "content-type" });
    // Signing in is public: a form on another page must not sign the browser in as someone else.
    await expectGatewayError(await form({}, "/api/session/login", `username=${ADMIN.username}&password=${encodeURIComponent(ADMIN.password)}`), 415, { param: "content-type" });
    const multipart = new FormData();
    multipart.set("name", "from-a-form");
    const response = await fetch(`${gw.url}/api/governance/virtual-keys/${keyId}/rotate`, { method: "POST", headers: bearer(session), body: multipart });
    await expectGatewayError(response, 415, { param: "content-type" });
    const keys = (await (await gw.admin("/api/governance/virtual-keys")).json()) as { virtual_keys: Array<{ name: string }> };
    expect(keys.virtual_keys.map((key) => key.name)).not.toContain("from-a-form");
  });

  test("the session cookie is Secure when the gateway is reached over HTTPS, through a proxy that says so", async () => {
    const overHttps = await call(gw, "/api/session/login", { method: "POST", headers: { "x-forwarded-proto": "https" }, json: ADMIN });
    expect(setCookie(overHttps, "gateway_session")).toMatch(/; Secure/i);
    const overHttp = await call(gw, "/api/session/login", { method: "POST", json: ADMIN });
    expect(setCookie(overHttp, "gateway_session")).not.toMatch(/Secure/i);
  });

  test("the dashboard's page forbids framing and scripts from anywhere but the gateway", async () => {
    for (const path of ["/", "/ui/logs"]) {
      const response = await fetch(`${gw.url}${path}`);
      expect(response.status).toBe(200);
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toMatch(/script-src 'self'(;|$)/);
      expect(policy).not.toContain("unsafe-inline");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
  });
});

describe("the setup cookie, before any admin account exists", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  test("a write with the setup cookie from another origin is refused; from the gateway's own page it passes", async () => {
    const exchanged = await call(gw, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": "test-setup-token" } });
    const cookie = `gateway_setup_session=${cookieValue(setCookie(exchanged, "gateway_setup_session")!)}`;
    const createKey = (origin: string) => call(gw, "/api/governance/virtual-keys", { method: "POST", headers: { cookie, origin }, json: { name: `from ${origin}` } });
    await expectGatewayError(await createKey(OTHER_PORT_ORIGIN), 403, { errorType: "caller_cross_origin_request" });
    expect((await createKey(gw.url)).status).toBe(201);
  });
});
