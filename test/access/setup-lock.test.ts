import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../../src/app";
import { expectGatewayError } from "../support/gateway-error";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { ADMIN, bearer, basicToken, call, cookieValue, json, setCookie } from "./access-client";

describe("OSS setup lock (spec 5.6) while dashboard auth is not active", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  test("public endpoints answer without any credential", async () => {
    expect((await call(gw, "/health")).status).toBe(200);
    expect(await json(await call(gw, "/api/version"))).toHaveProperty("version");
    expect(await json(await call(gw, "/api/session/is-auth-enabled"))).toEqual({ is_auth_enabled: false, has_valid_token: false });
    // Login is public; it only explains that there is nothing to log in to yet.
    await expectGatewayError(await call(gw, "/api/session/login", { method: "POST", json: { username: "a", password: "b" } }), 400, { errorType: "caller_auth_not_enabled" });
  });

  test("a missing setup token is a 401 that does not reveal the token", async () => {
    const response = await call(gw, "/api/providers");
    const text = await response.clone().text();
    await expectGatewayError(response, 401, { errorType: "caller_setup_token_required" });
    expect(text).toContain("X-Gateway-Setup-Token");
    expect(text).not.toContain(SETUP_TOKEN);
  });

  test("a wrong setup token is a 403, even one that shares the right token's prefix", async () => {
    for (const wrong of ["nope", SETUP_TOKEN.slice(0, -1), `${SETUP_TOKEN}x`, ""]) {
      const response = await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": wrong } });
      const text = await response.clone().text();
      await expectGatewayError(response, 403, { errorType: "caller_invalid_setup_token" });
      expect(text).not.toContain(SETUP_TOKEN);
    }
  });

  test("the right setup token opens every management route, as the local admin", async () => {
    expect(await json(await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": SETUP_TOKEN } }))).toEqual({ providers: [] });
    // An undeclared route is refused to non-admins only: the local admin reaches the router's 404.
    await expectGatewayError(await call(gw, "/api/nothing-here", { headers: { "x-gateway-setup-token": SETUP_TOKEN } }), 404, { errorType: "caller_route_not_found" });
  });

  test("Authorization is not a substitute for the setup token while locked", async () => {
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(basicToken("anyone", "anything")) }), 401);
  });

  test("a virtual key is refused even next to the right setup token", async () => {
    await expectGatewayError(await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": SETUP_TOKEN, "x-api-key": "sk-gw-abc" } }), 401, {
      errorType: "caller_virtual_key_not_accepted",
    });
    await expectGatewayError(await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": SETUP_TOKEN, authorization: "Bearer sk-gw-abc" } }), 401, {
      errorType: "caller_virtual_key_not_accepted",
    });
  });

  test("inference routes are not management routes: the lock leaves them alone", async () => {
    const response = await call(gw, "/v1/chat/completions", { method: "POST", json: { model: "nobody/none", messages: [{ role: "user", content: "hi" }] } });
    expect(response.status).not.toBe(401);
    expect(response.status).not.toBe(403);
  });

  describe("POST /api/session/setup exchanges the token for an HttpOnly cookie", () => {
    test("without the token it is a 401, with a wrong one a 403", async () => {
      await expectGatewayError(await call(gw, "/api/session/setup", { method: "POST" }), 401);
      await expectGatewayError(await call(gw, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": "wrong" } }), 403);
    });

    test("the gateway_setup_session cookie then opens the API without the header", async () => {
      const response = await call(gw, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": SETUP_TOKEN } });
      expect(response.status).toBe(200);
      const cookie = setCookie(response, "gateway_setup_session")!;
      expect(cookie).toContain("HttpOnly");
      expect(cookie).toContain("SameSite=Strict");
      expect(cookie).not.toContain(SETUP_TOKEN);
      const cookieHeader = { cookie: `gateway_setup_session=${cookieValue(cookie)}` };
      expect((await call(gw, "/api/providers", { headers: cookieHeader })).status).toBe(200);
      expect(await json(await call(gw, "/api/session/is-auth-enabled", { headers: cookieHeader }))).toEqual({ is_auth_enabled: false, has_valid_token: true });
      // A wrong header wins over a valid cookie.
      await expectGatewayError(await call(gw, "/api/providers", { headers: { ...cookieHeader, "x-gateway-setup-token": "wrong" } }), 403);
      await expectGatewayError(await call(gw, "/api/providers", { headers: { cookie: "gateway_setup_session=forged" } }), 401);
    });
  });
});

describe("once dashboard auth is enabled the setup token stops working", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  test("enabling the admin account through PUT /api/config/auth switches the lock off", async () => {
    const setupCookie = cookieValue(setCookie(await call(gw, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": SETUP_TOKEN } }), "gateway_setup_session")!);
    const configured = await json(await gw.admin("/api/config/auth", { method: "PUT", json: { admin_username: ADMIN.username, admin_password: ADMIN.password, enabled: true } }));
    expect(configured).toEqual({ admin_username: ADMIN.username, enabled: true, is_configured: true, managed_by: "api" });
    expect(JSON.stringify(configured)).not.toContain(ADMIN.password);

    expect(await json(await call(gw, "/api/session/is-auth-enabled"))).toEqual({ is_auth_enabled: true, has_valid_token: false });
    await expectGatewayError(await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": SETUP_TOKEN } }), 401, { errorType: "caller_unauthenticated" });
    await expectGatewayError(await call(gw, "/api/providers", { headers: { cookie: `gateway_setup_session=${setupCookie}` } }), 401);
    await expectGatewayError(await call(gw, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": SETUP_TOKEN } }), 400, { errorType: "caller_auth_enabled" });
    expect((await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, ADMIN.password)) })).status).toBe(200);
  });

  test("disabling it again brings the lock back", async () => {
    const admin = bearer(basicToken(ADMIN.username, ADMIN.password));
    expect((await call(gw, "/api/config/auth", { method: "PUT", headers: admin, json: { admin_username: ADMIN.username, enabled: false } })).status).toBe(200);
    await expectGatewayError(await call(gw, "/api/providers", { headers: admin }), 401, { errorType: "caller_setup_token_required" });
    expect((await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": SETUP_TOKEN } })).status).toBe(200);
  });

  test("creating the admin account needs a password of at least 8 characters", async () => {
    const fresh = await startGateway();
    try {
      await expectGatewayError(await fresh.admin("/api/config/auth", { method: "PUT", json: { admin_username: "x", enabled: true } }), 400, { param: "admin_password" });
      await expectGatewayError(await fresh.admin("/api/config/auth", { method: "PUT", json: { admin_username: "x", admin_password: "short", enabled: true } }), 400, { param: "admin_password" });
    } finally {
      await fresh.close();
    }
  });
});

describe("the setup token's sources", () => {
  const printed: string[] = [];
  let warn: ReturnType<typeof spyOn>;
  beforeAll(() => {
    warn = spyOn(console, "warn").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
  });
  afterEach(() => void printed.splice(0));
  afterAll(() => warn.mockRestore());

  test("without one configured, a token is generated once, printed to stderr at every start, and kept", async () => {
    const gw = await startGateway({ setup_token: undefined });
    const first = /setup token: (\S+)/.exec(printed.join("\n"))?.[1];
    expect(first).toBeString();
    const opened = (await call(gw, "/api/providers", { headers: { "x-gateway-setup-token": first! } })).status;
    await gw.stop();
    printed.splice(0);
    const again = await gw.restart();
    try {
      expect(opened).toBe(200);
      expect(/setup token: (\S+)/.exec(printed.join("\n"))?.[1]).toBe(first!);
      expect((await call(again, "/api/providers", { headers: { "x-gateway-setup-token": first! } })).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  test("a configured token is never printed", async () => {
    const gw = await startGateway();
    await gw.close();
    expect(printed.join("\n")).not.toContain(SETUP_TOKEN);
  });

  test("a setup session belongs to the token it was exchanged for: once the token changes, its cookie opens nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-setup-rotated-"));
    const started = async (token: string) => {
      const gateway = await createGateway({ config: { setup_token: token }, databaseUrl: `file:${join(dir, "gateway.db")}`, env: { GATEWAY_ENCRYPTION_KEY: "test-encryption-key" } });
      return { gateway, url: `http://127.0.0.1:${gateway.listen(0, "127.0.0.1").port}` };
    };
    try {
      const first = await started("the-first-setup-token");
      const exchanged = await fetch(`${first.url}/api/session/setup`, { method: "POST", headers: { "x-gateway-setup-token": "the-first-setup-token" } });
      const cookieHeader = { cookie: `gateway_setup_session=${cookieValue(setCookie(exchanged, "gateway_setup_session")!)}` };
      expect((await fetch(`${first.url}/api/providers`, { headers: cookieHeader })).status).toBe(200);
      await first.gateway.stop();
      const second = await started("the-second-setup-token");
      try {
        await expectGatewayError(await fetch(`${second.url}/api/providers`, { headers: cookieHeader }), 401, { errorType: "caller_setup_token_required" });
        expect((await fetch(`${second.url}/api/providers`, { headers: { "x-gateway-setup-token": "the-second-setup-token" } })).status).toBe(200);
      } finally {
        await second.gateway.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("GATEWAY_SETUP_TOKEN wins over config.json's setup_token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-setup-env-"));
    const gateway = await createGateway({
      config: { setup_token: "from-config" },
      databaseUrl: `file:${join(dir, "gateway.db")}`,
      env: { GATEWAY_SETUP_TOKEN: "from-environment", GATEWAY_ENCRYPTION_KEY: "test-encryption-key" },
    });
    const server = gateway.listen(0, "127.0.0.1");
    try {
      const url = `http://127.0.0.1:${server.port}/api/providers`;
      expect((await fetch(url, { headers: { "x-gateway-setup-token": "from-environment" } })).status).toBe(200);
      expect((await fetch(url, { headers: { "x-gateway-setup-token": "from-config" } })).status).toBe(403);
    } finally {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
