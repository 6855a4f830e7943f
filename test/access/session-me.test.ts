import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { ADMIN, AUTH_CONFIG, bearer, call, cookieValue, json, login, permissionIds, setCookie } from "./access-client";

interface Me {
  type: string;
  id: string;
  local_admin: boolean;
  permissions: string[];
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
});
afterAll(() => gw.close());

describe("GET /api/session/me: what the dashboard may show its user", () => {
  test("the admin holds every permission", async () => {
    const me = await json<Me>(await call(gw, "/api/session/me", { headers: bearer(await login(gw, ADMIN.username, ADMIN.password)) }));
    expect(me).toMatchObject({ type: "admin", local_admin: true });
    expect(me.permissions).toContain("Logs:Delete");
    expect(me.permissions).toContain("ModelProvider:Create");
  });

  test("an RBAC user holds exactly their role's permissions", async () => {
    const permission_ids = await permissionIds(gw, "Logs:View", "ModelProvider:View");
    const role = await json<{ id: number }>(await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name: "reader", permission_ids } }), 201);
    await json(await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: "reader", role_id: role.id, password: "reader-password" } }), 201);
    const me = await json<Me>(await call(gw, "/api/session/me", { headers: bearer(await login(gw, "reader", "reader-password")) }));
    expect(me).toMatchObject({ type: "user", local_admin: false });
    expect(me.permissions.sort()).toEqual(["Logs:View", "ModelProvider:View"]);
  });

  test("while dashboard auth is off, the setup token's holder is the local admin as 'setup', by header or by cookie", async () => {
    const locked = await startGateway({ edition: "enterprise" });
    try {
      const byHeader = await json<Me>(await call(locked, "/api/session/me", { headers: { "x-gateway-setup-token": SETUP_TOKEN } }));
      expect(byHeader).toMatchObject({ type: "setup", id: "setup", local_admin: true });
      const exchanged = await call(locked, "/api/session/setup", { method: "POST", headers: { "x-gateway-setup-token": SETUP_TOKEN } });
      const cookie = { cookie: `gateway_setup_session=${cookieValue(setCookie(exchanged, "gateway_setup_session")!)}` };
      expect(await json<Me>(await call(locked, "/api/session/me", { headers: cookie }))).toEqual(byHeader);
    } finally {
      await locked.close();
    }
  });

  test("without credentials it is a 401", async () => {
    expect((await call(gw, "/api/session/me")).status).toBe(401);
  });
});
