import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { ADMIN, AUTH_CONFIG, basicToken, bearer, call, cookieValue, json, login, setCookie } from "./access-client";

describe("dashboard login (spec 5.1)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ auth: AUTH_CONFIG });
  });
  afterAll(() => gw.close());

  test("GET /api/session/is-auth-enabled is public and says whether the caller's token is valid", async () => {
    expect(await json(await call(gw, "/api/session/is-auth-enabled"))).toEqual({ is_auth_enabled: true, has_valid_token: false });
    const token = await login(gw, ADMIN.username, ADMIN.password);
    expect(await json(await call(gw, "/api/session/is-auth-enabled", { headers: bearer(token) }))).toEqual({ is_auth_enabled: true, has_valid_token: true });
  });

  test("a wrong password or an unknown user is a 401 that echoes neither", async () => {
    for (const attempt of [
      { username: ADMIN.username, password: "guessing-the-password" },
      { username: "nobody-by-that-name", password: ADMIN.password },
    ]) {
      const response = await call(gw, "/api/session/login", { method: "POST", json: attempt });
      const text = await response.clone().text();
      await expectGatewayError(response, 401, { errorType: "caller_invalid_credentials" });
      expect(text).not.toContain(attempt.password);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  test("login answers a session token and sets it as an HttpOnly, SameSite cookie", async () => {
    const before = Date.now();
    const response = await call(gw, "/api/session/login", { method: "POST", json: { username: ADMIN.username, password: ADMIN.password } });
    const body = await json<{ message: string; token: string; expires_at: string }>(response);
    expect(body.message).toBe("Login successful");
    // A session lasts 24 hours.
    expect(Date.parse(body.expires_at) - before).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(Date.parse(body.expires_at) - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    const cookie = setCookie(response, "gateway_session")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookieValue(cookie)).toBe(body.token);
    expect((await call(gw, "/api/providers", { headers: { cookie: `gateway_session=${body.token}` } })).status).toBe(200);
    expect((await call(gw, "/api/providers", { headers: bearer(body.token) })).status).toBe(200);
  });

  test("base64(username:password) as a bearer token is the admin; as Basic too", async () => {
    const token = basicToken(ADMIN.username, ADMIN.password);
    expect((await call(gw, "/api/providers", { headers: bearer(token) })).status).toBe(200);
    expect((await call(gw, "/api/providers", { headers: { authorization: `Basic ${token}` } })).status).toBe(200);
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, `${ADMIN.password}!`)) }), 401);
  });

  test("logout revokes the session and clears the cookie", async () => {
    const token = await login(gw, ADMIN.username, ADMIN.password);
    const response = await call(gw, "/api/session/logout", { method: "POST", headers: bearer(token) });
    expect(await json(response)).toEqual({ message: "Logout successful" });
    expect(setCookie(response, "gateway_session")).toMatch(/Max-Age=0/);
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(token) }), 401);
    await expectGatewayError(await call(gw, "/api/session/logout", { method: "POST", headers: bearer(token) }), 401);
  });

  test("the database keeps only a hash of each session token", async () => {
    const token = await login(gw, ADMIN.username, ADMIN.password);
    const client = createClient({ url: gw.databaseUrl });
    try {
      const rows = await client.execute("SELECT token_hash FROM access_sessions");
      expect(rows.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows.rows)).not.toContain(token);
      const admin = await client.execute("SELECT password_hash FROM admin_account");
      expect(String(admin.rows[0]!.password_hash)).toStartWith("$argon2id$");
    } finally {
      client.close();
    }
  });

  test("changing the admin password through the API ends every admin session", async () => {
    const token = await login(gw, ADMIN.username, ADMIN.password);
    const newPassword = "a brand new passphrase";
    const change = await call(gw, "/api/config/auth", { method: "PUT", headers: bearer(token), json: { admin_username: ADMIN.username, admin_password: newPassword, enabled: true } });
    expect(change.status).toBe(200);
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(token) }), 401);
    expect((await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, newPassword)) })).status).toBe(200);
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, ADMIN.password)) }), 401);
  });
});

describe("the admin account from config.json", () => {
  test("admin_password may be an env.NAME reference; the password never reaches the database", async () => {
    process.env.GATEWAY_TEST_ADMIN_PASSWORD = "password-from-the-environment";
    const gw = await startGateway({ auth: { admin_username: "env-admin", admin_password: "env.GATEWAY_TEST_ADMIN_PASSWORD" } });
    try {
      expect((await call(gw, "/api/providers", { headers: bearer(basicToken("env-admin", "password-from-the-environment")) })).status).toBe(200);
      await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(basicToken("env-admin", "env.GATEWAY_TEST_ADMIN_PASSWORD")) }), 401);
    } finally {
      delete process.env.GATEWAY_TEST_ADMIN_PASSWORD;
      await gw.close();
    }
  });

  test("a change made through the API survives a restart with the same config.json", async () => {
    const gw = await startGateway({ auth: AUTH_CONFIG });
    const changed = "changed through the API";
    await gw.admin("/api/config/auth", { method: "PUT", json: { admin_username: ADMIN.username, admin_password: changed, enabled: true } });
    await gw.stop();
    const again = await gw.restart();
    try {
      expect((await call(again, "/api/providers", { headers: bearer(basicToken(ADMIN.username, changed)) })).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  test("an admin session belongs to its username: once config.json names another admin, it opens nothing", async () => {
    const gw = await startGateway({ auth: AUTH_CONFIG });
    const token = await login(gw, ADMIN.username, ADMIN.password);
    await gw.stop();
    const renamed = await startGateway({ auth: { ...AUTH_CONFIG, admin_username: "another-operator" } }, { databaseUrl: gw.databaseUrl });
    try {
      await expectGatewayError(await call(renamed, "/api/providers", { headers: bearer(token) }), 401);
      expect((await call(renamed, "/api/providers", { headers: bearer(basicToken("another-operator", ADMIN.password)) })).status).toBe(200);
    } finally {
      await renamed.close();
      await gw.close();
    }
  });

  test("sessions survive a restart", async () => {
    const gw = await startGateway({ auth: AUTH_CONFIG });
    const token = await login(gw, ADMIN.username, ADMIN.password);
    await gw.stop();
    const again = await gw.restart();
    try {
      expect((await call(again, "/api/providers", { headers: bearer(token) })).status).toBe(200);
    } finally {
      await again.close();
    }
  });
});
