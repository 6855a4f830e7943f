import type { PermissionName } from "./permissions";

/**
 * The one place where every management route declares who may call it (spec 5). A route
 * under /api that is not listed here is refused to everyone but the local admin.
 */
export type RouteAccess =
  | { kind: "public" }
  /** The route checks a credential of its own (not a management one) and must do so itself. */
  | { kind: "own-credential"; credential: string }
  /** Any authenticated management caller. */
  | { kind: "authenticated" }
  | { kind: "local-admin" }
  /** `localAdminOnOss`: on OSS only the local admin, in enterprise the permission (spec 4.1). */
  | { kind: "permission"; permission: PermissionName; localAdminOnOss: boolean };

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface RouteRule {
  method: HttpMethod;
  /** Path pattern; `:name` matches one segment. */
  path: string;
  access: RouteAccess;
  /** Name of the enterprise feature; on OSS the route answers 404 saying so. */
  enterprise?: string;
  /** Audit action for writes; defaults to the permission's name. */
  action?: string;
}

const PUBLIC: RouteAccess = { kind: "public" };
const AUTHENTICATED: RouteAccess = { kind: "authenticated" };
const LOCAL_ADMIN: RouteAccess = { kind: "local-admin" };
const need = (permission: PermissionName): RouteAccess => ({ kind: "permission", permission, localAdminOnOss: false });
const localAdminOnOss = (permission: PermissionName): RouteAccess => ({ kind: "permission", permission, localAdminOnOss: true });
const ownCredential = (credential: string): RouteAccess => ({ kind: "own-credential", credential });

const rule = (method: HttpMethod, path: string, access: RouteAccess, action?: string): RouteRule => ({ method, path, access, action });

type CrudResource = "ModelProvider" | "Plugins" | "APIKeys" | "VirtualKeys" | "Teams" | "Customers" | "RoutingRules" | "PricingOverrides" | "Roles" | "Users" | "Webhooks" | "Agents" | "Guardrails" | "Alerts" | "MCPVirtualServers" | "LogSinks";

/** The usual five: list and create on the collection, read, update and delete on an item. */
function crud(collection: string, item: string, resource: CrudResource): RouteRule[] {
  return [
    rule("GET", collection, need(`${resource}:View`)),
    rule("POST", collection, need(`${resource}:Create`)),
    rule("GET", `${collection}${item}`, need(`${resource}:View`)),
    rule("PUT", `${collection}${item}`, need(`${resource}:Update`)),
    rule("DELETE", `${collection}${item}`, need(`${resource}:Delete`)),
  ];
}

const enterprise = (feature: string, rules: RouteRule[]) => rules.map((entry) => ({ ...entry, enterprise: feature }));

export const ROUTE_ACCESS: readonly RouteRule[] = [
  // Public (spec 5.6); the setup exchange checks the setup token itself.
  rule("GET", "/api/version", PUBLIC),
  rule("GET", "/api/openapi.json", PUBLIC),
  rule("GET", "/api/docs", PUBLIC),
  rule("GET", "/api/session/is-auth-enabled", PUBLIC),
  rule("POST", "/api/session/login", PUBLIC, "Session:Login"),
  rule("POST", "/api/session/setup", PUBLIC, "Session:Setup"),
  // Single sign-on: the provider list and login redirect are for people not signed in yet; the
  // callback checks the sealed sign-in cookie, the state and the provider's ID token itself.
  rule("GET", "/api/session/oidc/providers", PUBLIC),
  rule("GET", "/api/session/oidc/:provider/login", PUBLIC),
  rule("GET", "/api/session/oidc/:provider/callback", ownCredential("the identity provider's authorization code and the sealed sign-in cookie")),
  rule("POST", "/api/session/logout", AUTHENTICATED, "Session:Logout"),
  rule("GET", "/api/session/me", AUTHENTICATED),

  // Exemptions: these take a non-management credential and verify it in their own handler.
  rule("GET", "/api/governance/virtual-keys/quota", ownCredential("virtual key")),
  // Spec 5.3: only `Authorization: Bearer <management API key>` (checked, with MCP:Update, by the handler).
  rule("PUT", "/api/mcp/per-user-headers/flows/:id", ownCredential("management API key only")),
  rule("GET", "/api/mcp/oauth/callback", ownCredential("the authorization server's code and the state of a consent the gateway started")),

  rule("GET", "/api/config", need("Config:View")),
  rule("PUT", "/api/config", need("Config:Update")),
  rule("GET", "/api/config/auth", need("Config:View")),
  rule("PUT", "/api/config/auth", LOCAL_ADMIN, "Config:UpdateAuth"),

  ...crud("/api/providers", "/:provider", "ModelProvider"),
  ...crud("/api/providers/:provider/keys", "/:key_id", "ModelProvider"),
  rule("POST", "/api/providers/:provider/keys/:key_id/refresh-models", need("ModelProvider:Update")),
  rule("GET", "/api/models", need("ModelProvider:View")),
  // Setting a plugin `path` also needs the admin account itself (src/plugins/routes.ts).
  ...crud("/api/plugins", "/:name", "Plugins"),
  ...enterprise("Management API keys", crud("/api/api-keys", "/:id", "APIKeys")),

  ...crud("/api/governance/virtual-keys", "/:id", "VirtualKeys"),
  rule("POST", "/api/governance/virtual-keys/:id/rotate", need("VirtualKeys:Update")),
  ...crud("/api/governance/teams", "/:team_id", "Teams"),
  rule("DELETE", "/api/teams/:team_id", need("Teams:Delete")),
  ...crud("/api/governance/customers", "/:id", "Customers"),
  rule("GET", "/api/governance/budgets", need("Budgets:View")),
  rule("GET", "/api/governance/rate-limits", need("RateLimits:View")),
  ...crud("/api/governance/routing-rules", "/:id", "RoutingRules"),
  rule("GET", "/api/governance/complexity", need("RoutingRules:View")),
  rule("PUT", "/api/governance/complexity", need("RoutingRules:Update")),
  rule("DELETE", "/api/governance/complexity", need("RoutingRules:Update")),
  // Classifies the body it is given and keeps nothing: a read.
  rule("POST", "/api/governance/complexity/classify", need("RoutingRules:View")),
  ...crud("/api/governance/pricing-overrides", "/:id", "PricingOverrides"),

  ...enterprise("Role-based access control", [
    rule("GET", "/api/governance/rbac/permissions", AUTHENTICATED),
    ...crud("/api/governance/rbac/roles", "/:role_id", "Roles"),
    rule("PUT", "/api/governance/rbac/roles/:role_id/permissions", need("Roles:Update")),
    rule("PUT", "/api/roles/:role_id/permissions", need("Roles:Update")),
    ...crud("/api/governance/rbac/users", "/:user_id", "Users"),
  ]),
  ...enterprise("Audit logs", [
    rule("GET", "/api/governance/audit-logs", need("AuditLogs:View")),
    rule("GET", "/api/governance/audit-logs/:id", need("AuditLogs:View")),
    rule("GET", "/api/governance/audit-logs/:id/verify", need("AuditLogs:View")),
    rule("GET", "/api/audit-logs/:id/verify", need("AuditLogs:View")),
  ]),

  rule("GET", "/api/logs", need("Logs:View")),
  // The dashboard's notification WebSocket: request logs as they are stored.
  rule("GET", "/api/ws", need("Logs:View")),
  rule("GET", "/api/logs/export", need("Logs:View")),
  rule("GET", "/api/logs/stats", need("Logs:View")),
  rule("GET", "/api/logs/histogram", need("Logs:View")),
  rule("GET", "/api/logs/rankings", need("Logs:View")),
  rule("GET", "/api/logs/series", need("Logs:View")),
  rule("GET", "/api/logs/prompt-versions", need("Logs:View")),
  rule("GET", "/api/logs/metadata-keys", need("Logs:View")),
  rule("GET", "/api/logs/conversations/:id", need("Logs:View")),
  rule("GET", "/api/logs/:id", need("Logs:View")),
  rule("DELETE", "/api/logs", need("Logs:Delete")),
  ...crud("/api/log-sinks", "/:name", "LogSinks"),
  // Async jobs with their results: model output, as readable as the request logs.
  rule("GET", "/api/async-jobs", need("Logs:View")),
  rule("GET", "/api/mcp-logs", need("MCPLogs:View")),
  rule("GET", "/api/mcp-logs/histogram/cost", need("MCPLogs:View")),

  rule("GET", "/api/mcp/clients", need("MCP:View")),
  rule("GET", "/api/mcp/per-user-headers/flows/:id", need("MCP:View")),
  rule("POST", "/api/mcp/client", need("MCP:Create")),
  // Fetches the document the caller names: as much of a write as registering the client.
  rule("POST", "/api/mcp/openapi/operations", need("MCP:Create")),
  rule("PUT", "/api/mcp/client/:id", need("MCP:Update")),
  rule("DELETE", "/api/mcp/client/:id", need("MCP:Delete")),
  rule("POST", "/api/mcp/client/:id/reconnect", need("MCP:Update")),
  rule("POST", "/api/mcp/client/:id/oauth/connect", need("MCP:Update")),
  rule("GET", "/api/mcp/per-user-headers/flows", need("MCP:View")),
  ...crud("/api/mcp/virtual-servers", "/:id", "MCPVirtualServers"),

  // GET /metrics is outside /api and this table: a metrics token or an allow-listed address opens it (src/telemetry/README.md).
  rule("DELETE", "/api/cache/clear/:cacheId", need("Cache:Delete")),
  rule("DELETE", "/api/cache/clear-by-key/:cacheKey", need("Cache:Delete")),
  ...crud("/api/guardrails", "/:id", "Guardrails"),
  rule("GET", "/api/prompts", need("Prompts:View")),
  rule("GET", "/api/prompts/export", need("Prompts:View")),
  rule("POST", "/api/prompts/import", need("Prompts:Edit")),
  rule("PUT", "/api/prompts", need("Prompts:Edit")),
  rule("POST", "/api/prompts", need("Prompts:Edit")),
  rule("GET", "/api/prompts/:name", need("Prompts:View")),
  rule("DELETE", "/api/prompts/:name", need("Prompts:Edit")),
  rule("POST", "/api/prompts/:name/versions", need("Prompts:Edit")),
  rule("GET", "/api/prompts/:name/versions/:version", need("Prompts:View")),
  rule("POST", "/api/prompts/:name/render", need("Prompts:View")),
  rule("PUT", "/api/prompts/:name/labels/:label", need("Prompts:Deploy")),
  rule("DELETE", "/api/prompts/:name/labels/:label", need("Prompts:Deploy")),

  ...crud("/api/webhooks", "/:id", "Webhooks"),
  rule("POST", "/api/webhooks/:id/rotate-secret", need("Webhooks:Update")),
  rule("POST", "/api/webhooks/:id/test", need("Webhooks:Update")),
  rule("POST", "/api/webhooks/:id/recover", need("Webhooks:Update")),
  rule("GET", "/api/webhooks/:id/deliveries", need("Webhooks:View")),
  rule("GET", "/api/webhooks/deliveries", need("Webhooks:View")),
  rule("POST", "/api/webhooks/deliveries/:id/redeliver", need("Webhooks:Create")),
  ...crud("/api/alerts/rules", "/:id", "Alerts"),
  ...crud("/api/alerts/channels", "/:id", "Alerts"),
  rule("GET", "/api/alerts/figures", need("Alerts:View")),
  rule("GET", "/api/alerts/builtins", need("Alerts:View")),
  rule("POST", "/api/alerts/builtins/:name", need("Alerts:Create")),
  rule("GET", "/api/alerts/forecast", need("Alerts:View")),
  rule("GET", "/api/alerts/rules/:id/history", need("Alerts:View")),
  rule("GET", "/api/alerts/rules/:id/preview", need("Alerts:View")),
  rule("POST", "/api/alerts/rules/:id/evaluate", need("Alerts:Update")),
  rule("POST", "/api/alerts/rules/:id/silence", need("Alerts:Update")),
  rule("DELETE", "/api/alerts/rules/:id/silence", need("Alerts:Update")),
  rule("POST", "/api/alerts/rules/:id/acknowledge", need("Alerts:Update")),
  rule("POST", "/api/alerts/channels/:id/test", need("Alerts:Update")),

  ...crud("/api/agents", "/:name", "Agents"),
  rule("GET", "/api/agents/history", need("Agents:View")),

  // The durable actors' lifecycles: machines, instances, histories, live transitions.
  rule("GET", "/api/actors", need("Actors:View")),
  rule("GET", "/api/actors/counts", need("Actors:View")),
  rule("GET", "/api/actors/events", need("Actors:View")),
  rule("GET", "/api/actors/machines", need("Actors:View")),
  rule("GET", "/api/actors/machines/:kind", need("Actors:View")),
  rule("GET", "/api/actors/:kind/:id", need("Actors:View")),

  // The dashboard's playground: listing what to try; running a call as any virtual key spends that key's budget.
  rule("GET", "/api/playground/models", need("Playground:View")),
  rule("POST", "/api/playground/chat/completions", need("Playground:Create")),

  rule("GET", "/api/warp/config", need("Warp:View")),
  rule("PUT", "/api/warp/config", localAdminOnOss("Warp:Update")),
  rule("POST", "/api/warp/chat", need("Warp:Create")),
  rule("POST", "/api/warp/log-index/backfill", need("Warp:Update")),
  rule("GET", "/api/warp/log-index/backfill/status", need("Warp:View")),
  rule("POST", "/api/warp/log-index/backfill/cancel", need("Warp:Update")),
  rule("GET", "/api/warp/conversations", need("Warp:View")),
  rule("DELETE", "/api/warp/conversations", need("Warp:Delete")),
  rule("GET", "/api/warp/conversations/:id", need("Warp:View")),
  rule("DELETE", "/api/warp/conversations/:id", need("Warp:Delete")),
];

export interface MatchedRoute {
  rule: RouteRule;
  params: Record<string, string>;
}

interface CompiledRule {
  rule: RouteRule;
  segments: string[];
  paramCount: number;
}

const compiled: CompiledRule[] = ROUTE_ACCESS.map((entry) => {
  const segments = entry.path.split("/").filter(Boolean);
  return { rule: entry, segments, paramCount: segments.filter((segment) => segment.startsWith(":")).length };
});

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of pattern.entries()) {
    const value = actual[index]!;
    if (segment.startsWith(":")) params[segment.slice(1)] = decodeSegment(value);
    else if (segment !== value) return undefined;
  }
  return params;
}

/** The rule for a request; a literal segment beats a parameter (`/virtual-keys/quota` over `/virtual-keys/:id`). */
export function routeAccessFor(method: string, pathname: string): MatchedRoute | undefined {
  const wanted = method === "HEAD" ? "GET" : method;
  const actual = pathname.split("/").filter((segment, index, all) => segment !== "" || (index > 0 && index < all.length - 1));
  let best: (MatchedRoute & { paramCount: number }) | undefined;
  for (const candidate of compiled) {
    if (candidate.rule.method !== wanted) continue;
    if (best && candidate.paramCount >= best.paramCount) continue;
    const params = matchSegments(candidate.segments, actual);
    if (params) best = { rule: candidate.rule, params, paramCount: candidate.paramCount };
  }
  return best && { rule: best.rule, params: best.params };
}
