import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { ADMIN, AUTH_CONFIG, bearer, call, json, login, permissionIds } from "./access-client";

interface Me {
  type: string;
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

  test("without credentials it is a 401", async () => {
    expect((await call(gw, "/api/session/me")).status).toBe(401);
  });
});
