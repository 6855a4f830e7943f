import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { AUTH_CONFIG, bearer, call, json, login, permissionIds } from "./access-client";

interface Permission {
  id: number;
  name: string;
  resource: string;
  operation: string;
}
interface Role {
  id: number;
  name: string;
  is_builtin: boolean;
  permission_ids: number[];
  permissions: string[];
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
});
afterAll(() => gw.close());

async function createRole(name: string, permissions: string[]): Promise<Role> {
  return json<Role>(await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name, permission_ids: await permissionIds(gw, ...permissions) } }), 201);
}

/** A dashboard user holding `role`, logged in: returns their session token. */
async function userWithRole(username: string, role: Role): Promise<string> {
  const password = `${username}-password`;
  await json(await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username, role_id: role.id, password } }), 201);
  return login(gw, username, password);
}

describe("GET /api/governance/rbac/permissions", () => {
  test("lists Resource:Operation pairs with stable, unique integer ids", async () => {
    const { permissions, count } = await json<{ permissions: Permission[]; count: number }>(await gw.admin("/api/governance/rbac/permissions"));
    expect(count).toBe(permissions.length);
    expect(new Set(permissions.map((permission) => permission.id)).size).toBe(permissions.length);
    for (const permission of permissions) expect(permission.name).toBe(`${permission.resource}:${permission.operation}`);
    // The permissions the spec names, each with the id it will keep across releases.
    const byName = Object.fromEntries(permissions.map((permission) => [permission.name, permission.id]));
    expect(byName).toMatchObject({
      "Dashboard:View": 101,
      "ModelProvider:View": 401,
      "Plugins:Create": 502,
      "Teams:Delete": 604,
      "AuditLogs:View": 1301,
      "Webhooks:Create": 1402,
      "Webhooks:Update": 1403,
      "Warp:Update": 1503,
      "MCPLogs:View": 301,
    });
    const resources = new Set(permissions.map((permission) => permission.resource));
    for (const resource of ["Logs", "Customers", "VirtualKeys", "Budgets", "RateLimits", "RoutingRules", "PricingOverrides", "APIKeys", "Roles", "Users", "MCP", "Agents", "Cache", "Config"]) {
      expect(resources).toContain(resource);
    }
  });
});

describe("roles", () => {
  test("Admin, Developer and Viewer are built in; Admin holds every permission", async () => {
    const { roles } = await json<{ roles: Role[] }>(await gw.admin("/api/governance/rbac/roles"));
    expect(roles.filter((role) => role.is_builtin).map((role) => role.name)).toEqual(["Admin", "Developer", "Viewer"]);
    const { count } = await json<{ count: number }>(await gw.admin("/api/governance/rbac/permissions"));
    expect(roles.find((role) => role.name === "Admin")!.permission_ids).toHaveLength(count);
    expect(roles.find((role) => role.name === "Viewer")!.permissions.every((name) => name.endsWith(":View"))).toBe(true);
  });

  test("built-in roles cannot be deleted, and Admin's permissions cannot be narrowed", async () => {
    const { roles } = await json<{ roles: Role[] }>(await gw.admin("/api/governance/rbac/roles"));
    const admin = roles.find((role) => role.name === "Admin")!;
    await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${admin.id}`, { method: "DELETE" }), 409);
    await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${admin.id}/permissions`, { method: "PUT", json: { permission_ids: [] } }), 409);
  });

  test("CRUD on a custom role", async () => {
    const role = await createRole("auditor", ["AuditLogs:View"]);
    expect(role.permissions).toEqual(["AuditLogs:View"]);
    await expectGatewayError(await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name: "auditor" } }), 409, { param: "name" });
    const renamed = await json<Role>(await gw.admin(`/api/governance/rbac/roles/${role.id}`, { method: "PUT", json: { name: "security-auditor" } }));
    expect(renamed.name).toBe("security-auditor");
    expect(await json(await gw.admin(`/api/governance/rbac/roles/${role.id}`, { method: "DELETE" }))).toEqual({ message: "Role deleted successfully" });
    await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${role.id}`), 404);
  });
});

describe("PUT /api/governance/rbac/roles/{role_id}/permissions (spec 4.9)", () => {
  test("replaces the role's set and answers Permissions updated; it takes effect at once", async () => {
    const role = await createRole("provider-reader", ["ModelProvider:View"]);
    const session = await userWithRole("dana", role);
    expect((await call(gw, "/api/providers", { headers: bearer(session) })).status).toBe(200);
    const denied = await expectGatewayError(await call(gw, "/api/providers", { method: "POST", headers: bearer(session), json: { provider: "groq" } }), 403);
    expect(denied.error.message).toContain("ModelProvider:Create");

    const replacement = await permissionIds(gw, "ModelProvider:Create", "Logs:View");
    const response = await gw.admin(`/api/governance/rbac/roles/${role.id}/permissions`, { method: "PUT", json: { permission_ids: replacement } });
    expect(await json(response)).toEqual({ message: "Permissions updated" });
    expect((await json<Role>(await gw.admin(`/api/governance/rbac/roles/${role.id}`))).permission_ids).toEqual([...replacement].sort((a, b) => a - b));

    // Replaced, not added to: View is gone, Create arrived.
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(session) }), 403);
    expect((await call(gw, "/api/providers", { method: "POST", headers: bearer(session), json: { provider: "groq" } })).status).toBe(201);
  });

  test("an unknown permission id is a 400 and changes nothing", async () => {
    const role = await createRole("unchanged", ["Logs:View"]);
    const known = await permissionIds(gw, "Logs:View");
    const refused = await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${role.id}/permissions`, { method: "PUT", json: { permission_ids: [...known, 424242] } }), 400, {
      param: "permission_ids[1]",
    });
    expect(refused.error.message).toBe("permission id 424242 does not exist (see GET /api/governance/rbac/permissions)");
    await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${role.id}/permissions`, { method: "PUT", json: { permission_ids: [424243, ...known] } }), 400, {
      param: "permission_ids[0]",
    });
    expect((await json<Role>(await gw.admin(`/api/governance/rbac/roles/${role.id}`))).permission_ids).toEqual(known);
  });

  test("an unknown role is a 404; a missing body field a 400", async () => {
    await expectGatewayError(await gw.admin("/api/governance/rbac/roles/99999/permissions", { method: "PUT", json: { permission_ids: [] } }), 404);
    const role = await createRole("needs-body", []);
    await expectGatewayError(await gw.admin(`/api/governance/rbac/roles/${role.id}/permissions`, { method: "PUT", json: {} }), 400, { param: "permission_ids" });
  });

  test("a role_id that is a number but out of range is a 400 naming role_id, as one that is no number is", async () => {
    const outOfRange = await expectGatewayError(await gw.admin("/api/governance/rbac/roles/0/permissions", { method: "PUT", json: { permission_ids: [] } }), 400, { param: "role_id" });
    expect(outOfRange.error.message).toStartWith("params field 'role_id'");
    await expectGatewayError(await gw.admin("/api/governance/rbac/roles/abc/permissions", { method: "PUT", json: { permission_ids: [] } }), 400, { param: "role_id" });
  });

  test("the deprecated PUT /api/roles/{role_id}/permissions does the same, with Deprecation and Link headers", async () => {
    const role = await createRole("via-old-path", []);
    const ids = await permissionIds(gw, "Cache:Delete");
    const response = await gw.admin(`/api/roles/${role.id}/permissions`, { method: "PUT", json: { permission_ids: ids } });
    expect(response.headers.get("deprecation")).toBe("true");
    expect(response.headers.get("link")).toBe(`</api/governance/rbac/roles/${role.id}/permissions>; rel="successor-version"`);
    expect(await json(response)).toEqual({ message: "Permissions updated" });
    expect((await json<Role>(await gw.admin(`/api/governance/rbac/roles/${role.id}`))).permissions).toEqual(["Cache:Delete"]);
  });

  test("a role manager cannot add a permission they lack themselves (403)", async () => {
    const managers = await createRole("role-managers", ["Roles:Update", "Roles:View", "Logs:View"]);
    const session = await userWithRole("mallory", managers);
    const escalate = await permissionIds(gw, "Roles:Update", "Roles:View", "Logs:View", "Users:Create");
    const response = await call(gw, `/api/governance/rbac/roles/${managers.id}/permissions`, { method: "PUT", headers: bearer(session), json: { permission_ids: escalate } });
    const body = await expectGatewayError(response, 403, { errorType: "policy_grant_exceeds_own_permissions" });
    expect(body.error.message).toContain("Users:Create");
    // What they do hold they may hand on.
    const other = await createRole("log-readers", []);
    expect((await call(gw, `/api/governance/rbac/roles/${other.id}/permissions`, { method: "PUT", headers: bearer(session), json: { permission_ids: await permissionIds(gw, "Logs:View") } })).status).toBe(200);
  });
});

describe("routes declared ahead of their owners", () => {
  test("PUT /api/warp/config takes Warp:Update in enterprise (spec 4.1)", async () => {
    const withIt = await userWithRole("wanda", await createRole("warp-admins", ["Warp:Update"]));
    const without = await userWithRole("walter", await createRole("warp-viewers", ["Warp:View"]));
    const put = (session: string) => call(gw, "/api/warp/config", { method: "PUT", headers: bearer(session), json: { enabled: false } });
    const body = await expectGatewayError(await put(without), 403);
    expect(body.error.message).toContain("Warp:Update");
    // Let through: whatever the warp route answers, it is not the guard's refusal.
    expect([401, 403]).not.toContain((await put(withIt)).status);
  });
});

describe("budget forecasts in governance replies", () => {
  test("a team's forecasts reach only a caller who may read alerts; one who may read teams alone gets none", async () => {
    const team = (await json<{ team: { id: string } }>(await gw.admin("/api/governance/teams", { method: "POST", json: { name: "forecasted", budgets: [{ max_limit: 5, reset_duration: "1M" }] } }), 201)).team;
    const teamsOnly = await userWithRole("tess", await createRole("team-readers", ["Teams:View"]));
    const withAlerts = await userWithRole("alan", await createRole("team-and-alert-readers", ["Teams:View", "Alerts:View"]));
    const forecastsFor = async (session: string) => (await json<{ team: { forecasts: Array<{ owner_id: string; max_limit: number }> } }>(await call(gw, `/api/governance/teams/${team.id}`, { headers: bearer(session) }))).team.forecasts;
    expect(await forecastsFor(teamsOnly)).toEqual([]);
    expect(await forecastsFor(withAlerts)).toMatchObject([{ owner_id: team.id, max_limit: 5 }]);
  });
});

describe("users", () => {
  test("assigning a role is a grant: a user manager cannot hand out the Admin role", async () => {
    const userManagers = await createRole("user-managers", ["Users:Create", "Users:View"]);
    const session = await userWithRole("ursula", userManagers);
    const { roles } = await json<{ roles: Role[] }>(await gw.admin("/api/governance/rbac/roles"));
    const admin = roles.find((role) => role.name === "Admin")!;
    await expectGatewayError(await call(gw, "/api/governance/rbac/users", { method: "POST", headers: bearer(session), json: { username: "sneaky", role_id: admin.id } }), 403);
    const created = await call(gw, "/api/governance/rbac/users", { method: "POST", headers: bearer(session), json: { username: "peer", role_id: userManagers.id } });
    expect(await json(created, 201)).toMatchObject({ username: "peer", role: "user-managers", has_password: false });
  });

  test("a deleted user's session ends", async () => {
    const role = await createRole("short-term", ["ModelProvider:View"]);
    const session = await userWithRole("temp", role);
    const colleague = await userWithRole("stays", role);
    const { users } = await json<{ users: Array<{ id: string; username: string }> }>(await gw.admin("/api/governance/rbac/users"));
    const temp = users.find((user) => user.username === "temp")!;
    expect(await json(await gw.admin(`/api/governance/rbac/users/${temp.id}`, { method: "DELETE" }))).toEqual({ message: "User deleted successfully" });
    await expectGatewayError(await call(gw, "/api/providers", { headers: bearer(session) }), 401);
    // Only that user's: a colleague's session goes on.
    expect((await call(gw, "/api/providers", { headers: bearer(colleague) })).status).toBe(200);
  });

  test("passwords never come back", async () => {
    const role = await createRole("pw-check", []);
    const response = await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username: "secretive", role_id: role.id, password: "never-shown-password" } });
    const text = await response.text();
    expect(response.status).toBe(201);
    expect(text).not.toContain("never-shown-password");
    expect(text).not.toContain("argon2");
  });
});

describe("on OSS", () => {
  test("RBAC routes answer 404 saying they need the enterprise edition", async () => {
    const oss = await startGateway();
    try {
      for (const path of ["/api/governance/rbac/permissions", "/api/governance/rbac/roles", "/api/governance/rbac/users"]) {
        const body = await expectGatewayError(await oss.admin(path), 404, { errorType: "caller_enterprise_feature" });
        expect(body.error.message).toContain("enterprise edition");
      }
      await expectGatewayError(await oss.admin("/api/roles/1/permissions", { method: "PUT", json: { permission_ids: [] } }), 404, { errorType: "caller_enterprise_feature" });
    } finally {
      await oss.close();
    }
  });
});
