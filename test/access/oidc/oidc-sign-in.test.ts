import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { GatewayConfig } from "../../../src/config/schema";
import { startGateway, type TestGateway } from "../../support/gateway";
import { startMockOidcProvider, type MockOidcProvider } from "../../support/mock-oidc-provider";
import { ADMIN, AUTH_CONFIG, basicToken, bearer, call, login, permissionIds } from "../access-client";
import { signInOverHttp, withSession } from "./sign-in-flow";

const SECRET_ENV = "TEST_OIDC_CLIENT_SECRET";

function oidcConfig(idp: MockOidcProvider, extra: Partial<NonNullable<GatewayConfig["oidc"]>> = {}): GatewayConfig["oidc"] {
  return {
    providers: {
      corp: {
        display_name: "Corp SSO",
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: `env.${SECRET_ENV}`,
        roles: [
          { claim: "groups", value: "gateway-admins", role: "Admin" },
          { claim: "groups", value: "gateway-readers", role: "Viewer" },
        ],
      },
    },
    ...extra,
  };
}

describe("OIDC sign-in over HTTP (authorization code + PKCE, state, nonce)", () => {
  let idp: MockOidcProvider;
  let gw: TestGateway;
  beforeAll(async () => {
    idp = await startMockOidcProvider();
    process.env[SECRET_ENV] = idp.clientSecret;
    gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG, oidc: oidcConfig(idp) });
  });
  afterAll(async () => {
    await gw.close();
    idp.stop();
  });
  beforeEach(() => {
    idp.user = { sub: "user-1", email: "ada@example.com", name: "Ada", groups: ["gateway-admins"] };
    idp.idTokenChanges = {};
    idp.tamperSignature = false;
  });

  test("the public provider list names each provider and its login URL, without secrets", async () => {
    const response = await call(gw, "/api/session/oidc/providers");
    expect(response.status).toBe(200);
    const text = await response.clone().text();
    expect(await response.json()).toEqual({ providers: [{ id: "corp", display_name: "Corp SSO", login_url: "/api/session/oidc/corp/login" }], password_sign_in: true });
    expect(text).not.toContain(idp.clientSecret);
  });

  test("login sends the browser to the provider with PKCE (S256), state, nonce and the callback URI", async () => {
    const { authorizeQuery } = await signInOverHttp(gw, "corp");
    expect(authorizeQuery.get("code_challenge_method")).toBe("S256");
    expect(authorizeQuery.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorizeQuery.get("state")?.length).toBeGreaterThan(20);
    expect(authorizeQuery.get("nonce")?.length).toBeGreaterThan(20);
    expect(authorizeQuery.get("scope")?.split(" ")).toContain("openid");
    expect(authorizeQuery.get("redirect_uri")).toBe(`${gw.url}/api/session/oidc/corp/callback`);
  });

  test("a first sign-in creates the user with the role the group maps to, and the session works", async () => {
    const { response, session, page } = await signInOverHttp(gw, "corp", "/logs");
    expect(response.status).toBe(200);
    expect(page).toContain('url=/logs"');
    expect(session).toMatch(/^gws_/);
    expect((await call(gw, "/api/session/is-auth-enabled", withSession(session!))).status).toBe(200);
    const users = (await (await gw.admin("/api/governance/rbac/users")).json()) as { users: Array<{ username: string; role: string; has_password: boolean }> };
    expect(users.users).toContainEqual(expect.objectContaining({ username: "ada@example.com", role: "Admin", has_password: false }));
  });

  test("a group mapped to Viewer gets Viewer's permissions: reading works, writing is 403", async () => {
    idp.user = { sub: "reader-1", email: "rex@example.com", groups: ["gateway-readers"] };
    const { session } = await signInOverHttp(gw, "corp");
    expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(200);
    const write = await call(gw, "/api/providers", { method: "POST", headers: withSession(session!).headers, json: { provider: "openai", keys: [] } });
    expect(write.status).toBe(403);
  });

  test("the role follows the claims: a user moved to another group has the new role at the next sign-in", async () => {
    idp.user = { sub: "mover-1", email: "mo@example.com", groups: ["gateway-readers"] };
    const first = await signInOverHttp(gw, "corp");
    expect((await call(gw, "/api/governance/audit-logs", withSession(first.session!))).status).toBe(403);
    idp.user = { ...idp.user, groups: ["gateway-admins"] };
    const second = await signInOverHttp(gw, "corp");
    expect((await call(gw, "/api/governance/audit-logs", withSession(second.session!))).status).toBe(200);
  });

  test("claims that map to no role are refused with a page saying so, and no session", async () => {
    idp.user = { sub: "outsider-1", email: "eve@example.com", groups: ["marketing"] };
    const { response, page, session } = await signInOverHttp(gw, "corp");
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(page).toContain("no role in this gateway");
    expect(session).toBeUndefined();
  });

  for (const [name, arrange, says] of [
    ["a tampered signature", (p: MockOidcProvider) => (p.tamperSignature = true), "signature verification failed"],
    ["another audience", (p: MockOidcProvider) => (p.idTokenChanges = { aud: "some-other-client" }), '"aud"'],
    ["another nonce", (p: MockOidcProvider) => (p.idTokenChanges = { nonce: "not-this-sign-in" }), "nonce"],
    ["an expired token", (p: MockOidcProvider) => (p.idTokenChanges = { exp: Math.floor(Date.now() / 1000) - 600 }), '"exp"'],
    ["an unknown issuer", (p: MockOidcProvider) => (p.idTokenChanges = { iss: "https://impostor.example.com" }), '"iss"'],
  ] as const) {
    test(`an ID token with ${name} is refused (401, no session)`, async () => {
      arrange(idp);
      const { response, page, session } = await signInOverHttp(gw, "corp");
      expect(response.status).toBe(401);
      expect(page).toContain(says);
      expect(session).toBeUndefined();
    });
  }

  test("a callback without the login's cookie, or with another state, is refused", async () => {
    const login = await fetch(`${gw.url}/api/session/oidc/corp/login`, { redirect: "manual" });
    const atProvider = await fetch(login.headers.get("location")!, { redirect: "manual" });
    const callback = new URL(atProvider.headers.get("location")!);
    const withoutCookie = await fetch(callback, { redirect: "manual" });
    expect(withoutCookie.status).toBe(401);
    expect(await withoutCookie.text()).toContain("not started here");
    const pending = login.headers.getSetCookie().find((cookie) => cookie.startsWith("gateway_oidc_login="))!.split(";")[0]!;
    callback.searchParams.set("state", "forged-state");
    const otherState = await fetch(callback, { redirect: "manual", headers: { cookie: pending } });
    expect(otherState.status).toBe(401);
    expect(otherState.headers.getSetCookie().some((cookie) => cookie.startsWith("gateway_session="))).toBe(false);
  });

  test("a rotated signing key is picked up at the next sign-in", async () => {
    expect((await signInOverHttp(gw, "corp")).session).toBeDefined();
    const fetchesBefore = idp.jwksFetches;
    await idp.rotateKey();
    const { session } = await signInOverHttp(gw, "corp");
    expect(session).toBeDefined();
    expect(idp.jwksFetches).toBe(fetchesBefore + 1);
  });

  test("sign-out ends the gateway session and names the provider's end-session URL", async () => {
    const { session } = await signInOverHttp(gw, "corp");
    const logout = await call(gw, "/api/session/logout", { method: "POST", headers: withSession(session!).headers });
    const body = (await logout.json()) as { end_session_url?: string };
    expect(new URL(body.end_session_url!).origin + new URL(body.end_session_url!).pathname).toBe(`${idp.issuer}/logout`);
    expect(new URL(body.end_session_url!).searchParams.get("client_id")).toBe(idp.clientId);
    expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(401);
  });

  test("sign-ins, refusals and role changes by claims are in the audit log", async () => {
    idp.user = { sub: "audited-1", email: "al@example.com", groups: ["gateway-readers"] };
    await signInOverHttp(gw, "corp");
    idp.user = { ...idp.user, groups: ["gateway-admins"] };
    await signInOverHttp(gw, "corp");
    idp.user = { sub: "audited-2", groups: ["nothing"] };
    await signInOverHttp(gw, "corp");
    const { audit_logs: events } = (await (await gw.admin("/api/governance/audit-logs?limit=100")).json()) as { audit_logs: Array<{ action: string; outcome: string; summary: Record<string, unknown> }> };
    expect(events).toContainEqual(expect.objectContaining({ action: "Session:OidcSignIn", outcome: "success", summary: expect.objectContaining({ subject: "audited-1", role: "Viewer" }) }));
    expect(events).toContainEqual(expect.objectContaining({ action: "Users:RoleChangedByClaims", summary: expect.objectContaining({ before: { role: "Viewer" }, after: { role: "Admin" } }) }));
    expect(events).toContainEqual(expect.objectContaining({ action: "Session:OidcSignInRefused", outcome: "denied", summary: expect.objectContaining({ reason: "no_role" }) }));
  });

  test("an API key a signed-in user creates is theirs and stops working when the user is deleted", async () => {
    idp.user = { sub: "leaver-1", email: "lee@example.com", groups: ["gateway-admins"] };
    const { session } = await signInOverHttp(gw, "corp");
    const created = await call(gw, "/api/api-keys", { method: "POST", headers: withSession(session!).headers, json: { name: "lee-ci", scopes: await permissionIds(gw, "ModelProvider:View") } });
    expect(created.status).toBe(201);
    const { key, api_key } = (await created.json()) as { key: string; api_key: { owner_user_id: string } };
    expect((await call(gw, "/api/providers", { headers: bearer(key) })).status).toBe(200);
    expect((await gw.admin(`/api/governance/rbac/users/${api_key.owner_user_id}`, { method: "DELETE" })).status).toBeLessThan(300);
    expect((await call(gw, "/api/providers", { headers: bearer(key) })).status).toBe(401);
    expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(401);
  });

  test("the password admin still signs in (break-glass) by default", async () => {
    expect((await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, ADMIN.password)) })).status).toBe(200);
  });

  test("an unknown provider is a 404", async () => {
    expect((await call(gw, "/api/session/oidc/nobody/login")).status).toBe(404);
  });
});

describe("OIDC sign-in settings", () => {
  let idp: MockOidcProvider;
  beforeAll(async () => {
    idp = await startMockOidcProvider();
    process.env[SECRET_ENV] = idp.clientSecret;
  });
  afterAll(() => idp.stop());

  test("password_sign_in: false turns the password admin off; the provider still signs people in", async () => {
    const gw = await startGateway({ auth: AUTH_CONFIG, oidc: oidcConfig(idp, { password_sign_in: false }) });
    try {
      expect((await call(gw, "/api/session/login", { method: "POST", json: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(401);
      expect((await call(gw, "/api/providers", { headers: bearer(basicToken(ADMIN.username, ADMIN.password)) })).status).toBe(401);
      const { session } = await signInOverHttp(gw, "corp");
      expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  test("turning password sign-in off ends the admin sessions opened before", async () => {
    const before = await startGateway({ auth: AUTH_CONFIG, oidc: oidcConfig(idp) });
    const adminSession = await login(before, ADMIN.username, ADMIN.password);
    await before.stop();
    const after = await startGateway({ auth: AUTH_CONFIG, oidc: oidcConfig(idp, { password_sign_in: false }) }, { databaseUrl: before.databaseUrl });
    try {
      expect((await call(after, "/api/providers", { headers: bearer(adminSession) })).status).toBe(401);
    } finally {
      await after.close();
      rmSync(dirname(before.databaseUrl.replace(/^file:/, "")), { recursive: true, force: true });
    }
  });

  test("on the open-source edition too, with no admin account: providers turn dashboard auth on", async () => {
    const gw = await startGateway({ oidc: oidcConfig(idp) });
    try {
      expect(await (await call(gw, "/api/session/is-auth-enabled")).json()).toEqual({ is_auth_enabled: true, has_valid_token: false });
      expect((await call(gw, "/api/providers")).status).toBe(401);
      const { session } = await signInOverHttp(gw, "corp");
      expect((await call(gw, "/api/providers", withSession(session!))).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
