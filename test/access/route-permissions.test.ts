import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROUTE_ACCESS } from "../../src/access/route-access";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { bearer, call, createApiKey } from "./access-client";

/**
 * Every management route and the one permission it asks for, written out here rather than read
 * from src/access/route-access.ts: a route guarded by the wrong permission (DELETE /api/logs by
 * Logs:View) must fail this test, not follow it. The first test keeps the two lists in step.
 */
const EXPECTED: ReadonlyArray<readonly [method: string, path: string, permission: string]> = [
  ["GET", "/api/config", "Config:View"],
  ["PUT", "/api/config", "Config:Update"],
  ["GET", "/api/config/auth", "Config:View"],
  ...crud("/api/providers", "/:provider", "ModelProvider"),
  ...crud("/api/providers/:provider/keys", "/:key_id", "ModelProvider"),
  ["POST", "/api/providers/:provider/keys/:key_id/refresh-models", "ModelProvider:Update"],
  ["GET", "/api/models", "ModelProvider:View"],
  ...crud("/api/plugins", "/:name", "Plugins"),
  ...crud("/api/api-keys", "/:id", "APIKeys"),
  ...crud("/api/governance/virtual-keys", "/:id", "VirtualKeys"),
  ["POST", "/api/governance/virtual-keys/:id/rotate", "VirtualKeys:Update"],
  ...crud("/api/governance/teams", "/:team_id", "Teams"),
  ["DELETE", "/api/teams/:team_id", "Teams:Delete"],
  ...crud("/api/governance/customers", "/:id", "Customers"),
  ["GET", "/api/governance/budgets", "Budgets:View"],
  ["GET", "/api/governance/rate-limits", "RateLimits:View"],
  ...crud("/api/governance/routing-rules", "/:id", "RoutingRules"),
  ["GET", "/api/governance/complexity", "RoutingRules:View"],
  ["PUT", "/api/governance/complexity", "RoutingRules:Update"],
  ["DELETE", "/api/governance/complexity", "RoutingRules:Update"],
  ["POST", "/api/governance/complexity/classify", "RoutingRules:View"],
  ...crud("/api/governance/pricing-overrides", "/:id", "PricingOverrides"),
  ...crud("/api/governance/rbac/roles", "/:role_id", "Roles"),
  ["PUT", "/api/governance/rbac/roles/:role_id/permissions", "Roles:Update"],
  ["PUT", "/api/roles/:role_id/permissions", "Roles:Update"],
  ...crud("/api/governance/rbac/users", "/:user_id", "Users"),
  ["GET", "/api/governance/audit-logs", "AuditLogs:View"],
  ["GET", "/api/governance/audit-logs/:id", "AuditLogs:View"],
  ["GET", "/api/governance/audit-logs/:id/verify", "AuditLogs:View"],
  ["GET", "/api/audit-logs/:id/verify", "AuditLogs:View"],
  ["GET", "/api/logs", "Logs:View"],
  ["GET", "/api/ws", "Logs:View"],
  ["GET", "/api/logs/export", "Logs:View"],
  ["GET", "/api/logs/stats", "Logs:View"],
  ["GET", "/api/logs/histogram", "Logs:View"],
  ["GET", "/api/logs/rankings", "Logs:View"],
  ["GET", "/api/logs/series", "Logs:View"],
  ["GET", "/api/logs/prompt-versions", "Logs:View"],
  ["GET", "/api/logs/metadata-keys", "Logs:View"],
  ["GET", "/api/logs/conversations/:id", "Logs:View"],
  ["GET", "/api/logs/:id", "Logs:View"],
  ...crud("/api/log-sinks", "/:name", "LogSinks"),
  ["DELETE", "/api/logs", "Logs:Delete"],
  ["GET", "/api/async-jobs", "Logs:View"],
  ["GET", "/api/mcp-logs", "MCPLogs:View"],
  ["GET", "/api/mcp-logs/histogram/cost", "MCPLogs:View"],
  ["GET", "/api/mcp/clients", "MCP:View"],
  ["GET", "/api/mcp/per-user-headers/flows/:id", "MCP:View"],
  ["POST", "/api/mcp/client", "MCP:Create"],
  ["POST", "/api/mcp/openapi/operations", "MCP:Create"],
  ["PUT", "/api/mcp/client/:id", "MCP:Update"],
  ["DELETE", "/api/mcp/client/:id", "MCP:Delete"],
  ["POST", "/api/mcp/client/:id/reconnect", "MCP:Update"],
  ["POST", "/api/mcp/client/:id/oauth/connect", "MCP:Update"],
  ["GET", "/api/mcp/per-user-headers/flows", "MCP:View"],
  ...crud("/api/mcp/virtual-servers", "/:id", "MCPVirtualServers"),
  ["DELETE", "/api/cache/clear/:cacheId", "Cache:Delete"],
  ["DELETE", "/api/cache/clear-by-key/:cacheKey", "Cache:Delete"],
  ...crud("/api/webhooks", "/:id", "Webhooks"),
  ["POST", "/api/webhooks/:id/rotate-secret", "Webhooks:Update"],
  ["POST", "/api/webhooks/:id/test", "Webhooks:Update"],
  ["GET", "/api/webhooks/:id/deliveries", "Webhooks:View"],
  ["GET", "/api/webhooks/deliveries", "Webhooks:View"],
  ["POST", "/api/webhooks/deliveries/:id/redeliver", "Webhooks:Create"],
  ["POST", "/api/webhooks/:id/recover", "Webhooks:Update"],
  ...crud("/api/alerts/rules", "/:id", "Alerts"),
  ...crud("/api/alerts/channels", "/:id", "Alerts"),
  ["GET", "/api/alerts/figures", "Alerts:View"],
  ["GET", "/api/alerts/builtins", "Alerts:View"],
  ["POST", "/api/alerts/builtins/:name", "Alerts:Create"],
  ["GET", "/api/alerts/forecast", "Alerts:View"],
  ["GET", "/api/alerts/rules/:id/history", "Alerts:View"],
  ["GET", "/api/alerts/rules/:id/preview", "Alerts:View"],
  ["POST", "/api/alerts/rules/:id/evaluate", "Alerts:Update"],
  ["POST", "/api/alerts/rules/:id/silence", "Alerts:Update"],
  ["DELETE", "/api/alerts/rules/:id/silence", "Alerts:Update"],
  ["POST", "/api/alerts/rules/:id/acknowledge", "Alerts:Update"],
  ["POST", "/api/alerts/channels/:id/test", "Alerts:Update"],
  ["GET", "/api/actors", "Actors:View"],
  ["GET", "/api/actors/counts", "Actors:View"],
  ["GET", "/api/actors/events", "Actors:View"],
  ["GET", "/api/actors/machines", "Actors:View"],
  ["GET", "/api/actors/machines/:kind", "Actors:View"],
  ["GET", "/api/actors/:kind/:id", "Actors:View"],
  ...crud("/api/guardrails", "/:id", "Guardrails"),
  ["GET", "/api/prompts", "Prompts:View"],
  ["POST", "/api/prompts", "Prompts:Edit"],
  ["GET", "/api/prompts/export", "Prompts:View"],
  ["POST", "/api/prompts/import", "Prompts:Edit"],
  ["PUT", "/api/prompts", "Prompts:Edit"],
  ["POST", "/api/prompts/:name/render", "Prompts:View"],
  ["GET", "/api/prompts/:name", "Prompts:View"],
  ["DELETE", "/api/prompts/:name", "Prompts:Edit"],
  ["POST", "/api/prompts/:name/versions", "Prompts:Edit"],
  ["GET", "/api/prompts/:name/versions/:version", "Prompts:View"],
  ["PUT", "/api/prompts/:name/labels/:label", "Prompts:Deploy"],
  ["DELETE", "/api/prompts/:name/labels/:label", "Prompts:Deploy"],
  ...crud("/api/agents", "/:name", "Agents"),
  ["GET", "/api/agents/history", "Agents:View"],
  ["GET", "/api/playground/models", "Playground:View"],
  ["POST", "/api/playground/chat/completions", "Playground:Create"],
  ["GET", "/api/warp/config", "Warp:View"],
  ["PUT", "/api/warp/config", "Warp:Update"],
  ["POST", "/api/warp/chat", "Warp:Create"],
  ["POST", "/api/warp/log-index/backfill", "Warp:Update"],
  ["GET", "/api/warp/log-index/backfill/status", "Warp:View"],
  ["POST", "/api/warp/log-index/backfill/cancel", "Warp:Update"],
  ["GET", "/api/warp/conversations", "Warp:View"],
  ["DELETE", "/api/warp/conversations", "Warp:Delete"],
  ["GET", "/api/warp/conversations/:id", "Warp:View"],
  ["DELETE", "/api/warp/conversations/:id", "Warp:Delete"],
];

/** The rows that ask for no permission, and what a caller gets there without one. */
const WITHOUT_PERMISSION: ReadonlyArray<readonly [method: string, path: string, kind: string]> = [
  ["GET", "/api/version", "public"],
  ["GET", "/api/openapi.json", "public"],
  ["GET", "/api/docs", "public"],
  ["GET", "/api/session/is-auth-enabled", "public"],
  ["POST", "/api/session/login", "public"],
  ["POST", "/api/session/setup", "public"],
  ["GET", "/api/session/oidc/providers", "public"],
  ["GET", "/api/session/oidc/:provider/login", "public"],
  ["GET", "/api/session/oidc/:provider/callback", "own-credential"],
  ["POST", "/api/session/logout", "authenticated"],
  ["GET", "/api/session/me", "authenticated"],
  ["GET", "/api/governance/rbac/permissions", "authenticated"],
  ["GET", "/api/governance/virtual-keys/quota", "own-credential"],
  ["PUT", "/api/mcp/per-user-headers/flows/:id", "own-credential"],
  ["GET", "/api/mcp/oauth/callback", "own-credential"],
  ["PUT", "/api/config/auth", "local-admin"],
];

function crud(collection: string, item: string, resource: string) {
  return [
    ["GET", collection, `${resource}:View`],
    ["POST", collection, `${resource}:Create`],
    ["GET", `${collection}${item}`, `${resource}:View`],
    ["PUT", `${collection}${item}`, `${resource}:Update`],
    ["DELETE", `${collection}${item}`, `${resource}:Delete`],
  ] as const;
}

/** Parameters name things that do not exist, so a call that passes the guard changes nothing. */
const concretePath = (path: string) => path.replace(/:([a-z_]+)/gi, (_, name: string) => `no-such-${name.replaceAll("_", "-")}`);

describe("every route of the permission table, by an API key (enterprise)", () => {
  let gw: TestGateway;
  let allPermissions: string[];
  beforeAll(async () => {
    gw = await startGateway({ edition: "enterprise" });
    const response = await gw.admin("/api/governance/rbac/permissions");
    allPermissions = ((await response.json()) as { permissions: Array<{ name: string }> }).permissions.map((permission) => permission.name);
  });
  afterAll(() => gw.close());

  // One pair of keys per permission, shared by the routes that ask for it (names are unique).
  const keys = new Map<string, Promise<{ withoutIt: string; onlyIt: string }>>();
  const keysFor = (permission: string) => {
    let pair = keys.get(permission);
    if (!pair) {
      pair = (async () => ({
        withoutIt: await createApiKey(gw, `all but ${permission}`, allPermissions.filter((name) => name !== permission)),
        onlyIt: await createApiKey(gw, `only ${permission}`, [permission]),
      }))();
      keys.set(permission, pair);
    }
    return pair;
  };

  test("the tables here list exactly the routes the gateway declares, each with its kind of access", () => {
    const declared = ROUTE_ACCESS.map((rule) => `${rule.method} ${rule.path} ${rule.access.kind}`);
    const listed = [...EXPECTED.map(([method, path]) => `${method} ${path} permission`), ...WITHOUT_PERMISSION.map((row) => row.join(" "))];
    expect(listed.toSorted()).toEqual(declared.toSorted());
  });

  test("public routes answer a caller without credentials (the setup exchange checks its token itself)", async () => {
    for (const [method, path] of WITHOUT_PERMISSION.filter(([, , kind]) => kind === "public")) {
      const url = concretePath(path);
      const response = await call(gw, url, { method, json: method === "POST" ? {} : undefined });
      if (path === "/api/session/setup") await expectGatewayError(response, 401, { errorType: "caller_setup_token_required" });
      // A made-up sign-in provider is the route's own 404, not a refusal of the caller.
      else if (url !== path) expect([401, 403], `${method} ${path}`).not.toContain(response.status);
      else expect(response.status, `${method} ${path}`).toBeLessThan(401);
    }
  });

  test("routes for any authenticated caller let in a key that holds no permission they could ask for", async () => {
    const { onlyIt: dashboardOnly } = await keysFor("Dashboard:View");
    for (const [method, path] of WITHOUT_PERMISSION.filter(([, , kind]) => kind === "authenticated")) {
      const response = await call(gw, path, { method, headers: bearer(dashboardOnly) });
      expect(response.status, `${method} ${path}`).toBe(200);
    }
  });

  test("a local-admin route refuses a key that holds every permission", async () => {
    const everything = await createApiKey(gw, "every permission", allPermissions);
    for (const [method, path] of WITHOUT_PERMISSION.filter(([, , kind]) => kind === "local-admin")) {
      await expectGatewayError(await call(gw, path, { method, headers: bearer(everything), json: {} }), 403, { errorType: "policy_local_admin_required" });
    }
  });

  test("the permission table also answers HEAD (as GET) and paths with a trailing slash", async () => {
    const { withoutIt, onlyIt } = await keysFor("ModelProvider:View");
    await expectGatewayError(await call(gw, "/api/providers/", { headers: bearer(withoutIt) }), 403, { errorType: "policy_permission_denied" });
    for (const init of [{ path: "/api/providers/", method: "GET" }, { path: "/api/providers", method: "HEAD" }]) {
      const response = await call(gw, init.path, { method: init.method, headers: bearer(onlyIt) });
      expect({ ...init, status: response.status }).toEqual({ ...init, status: 200 });
    }
    // A collection's POST with a trailing slash is the collection's, not an undeclared item route.
    const creator = (await keysFor("VirtualKeys:Create")).onlyIt;
    const created = await call(gw, "/api/governance/virtual-keys/", { method: "POST", headers: bearer(creator), json: { name: "trailing-slash" } });
    expect(await created.text()).not.toContain("policy_permission_denied");
  });

  test("a route the table does not declare is refused to a key holding every permission, not to the local admin", async () => {
    const everything = await createApiKey(gw, "every permission, undeclared route", allPermissions);
    await expectGatewayError(await call(gw, "/api/undeclared/thing", { headers: bearer(everything) }), 403, { errorType: "policy_permission_denied" });
    await expectGatewayError(await gw.admin("/api/undeclared/thing"), 404, { errorType: "caller_route_not_found" });
  });

  test("the local admin passes a local-admin route", async () => {
    const response = await gw.admin("/api/config/auth", { method: "PUT", json: {} });
    expect(response.status).not.toBe(401);
    expect(await response.text()).not.toContain("policy_");
  });

  test("routes that check a credential of their own ask for that one, not a management login", async () => {
    await expectGatewayError(await call(gw, "/api/governance/virtual-keys/quota"), 401, { errorType: "caller_virtual_key_required" });
    await expectGatewayError(await call(gw, "/api/mcp/per-user-headers/flows/no-such-flow", { method: "PUT", json: {} }), 401, {
      errorType: "caller_management_api_key_required",
    });
  });

  for (const [method, path, permission] of EXPECTED) {
    test(`${method} ${path}: refused without ${permission}, let through with only it`, async () => {
      const url = concretePath(path);
      const { withoutIt, onlyIt } = await keysFor(permission);
      const refused = await expectGatewayError(await call(gw, url, { method, headers: bearer(withoutIt) }), 403, { errorType: "policy_permission_denied" });
      expect(refused.error.message).toContain(permission);

      const allowed = await call(gw, url, { method, headers: bearer(onlyIt) });
      // Past the guard the route answers for itself (404 for the missing item, 400 for the empty body): never 401 or a permission 403.
      // A stream (the actors' live events) never ends: its status says it was let in.
      const streamed = allowed.headers.get("content-type")?.startsWith("text/event-stream");
      const text = streamed ? "" : await allowed.text();
      if (streamed) await allowed.body?.cancel();
      expect({ status: allowed.status, text }).not.toMatchObject({ status: 401 });
      expect(text).not.toContain("policy_permission_denied");
      expect(text).not.toContain("caller_unauthenticated");
    });
  }
});

describe("enterprise routes on OSS", () => {
  test("answer 404 naming the feature that needs the enterprise edition", async () => {
    const oss = await startGateway({ edition: "oss" });
    try {
      for (const [path, feature] of [
        ["/api/api-keys", "Management API keys"],
        ["/api/governance/rbac/roles", "Role-based access control"],
        ["/api/governance/audit-logs", "Audit logs"],
      ] as const) {
        const refused = await expectGatewayError(await oss.admin(path), 404, { errorType: "caller_enterprise_feature" });
        expect(refused.error.message).toBe(`${feature} require the enterprise edition`);
      }
    } finally {
      await oss.close();
    }
  });
});
