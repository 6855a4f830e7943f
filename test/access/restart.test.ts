import { expect, test } from "bun:test";
import { startGateway } from "../support/gateway";
import { ADMIN, AUTH_CONFIG, bearer, call, createApiKey, json, login, permissionIds } from "./access-client";

test("a restart keeps sessions, API keys, roles, users and the audit trail's signatures", async () => {
  const gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
  const adminSession = await login(gw, ADMIN.username, ADMIN.password);
  const key = await createApiKey(gw, "survivor", ["ModelProvider:View"]);
  const role = await json<{ id: number }>(await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name: "persisted", permission_ids: await permissionIds(gw, "Logs:View") } }), 201);
  await json(await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: "riley", role_id: role.id, password: "riley-password" } }), 201);
  const userSession = await login(gw, "riley", "riley-password");
  const [event] = (await json<{ audit_logs: Array<{ id: string }> }>(await gw.admin("/api/governance/audit-logs?action=Roles:Create"))).audit_logs;
  await gw.stop();

  const again = await gw.restart();
  try {
    expect((await call(again, "/api/providers", { headers: bearer(adminSession) })).status).toBe(200);
    expect((await call(again, "/api/providers", { headers: bearer(key) })).status).toBe(200);
    expect((await call(again, "/api/api-keys", { headers: bearer(key) })).status).toBe(403);
    expect(await json(await again.admin(`/api/governance/rbac/roles/${role.id}`))).toMatchObject({ name: "persisted", permissions: ["Logs:View"] });
    // The user's session still carries the role's permissions, and nothing more.
    expect((await call(again, "/api/governance/rbac/roles", { headers: bearer(userSession) })).status).toBe(403);
    expect((await call(again, "/api/session/is-auth-enabled", { headers: bearer(userSession) })).status).toBe(200);
    expect(await json(await again.admin(`/api/governance/audit-logs/${event!.id}/verify`))).toMatchObject({ valid: true });
  } finally {
    await again.close();
  }
});
