import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { ADMIN, AUTH_CONFIG, basicToken, bearer, call, createApiKey, login } from "./access-client";

/**
 * Spec 5 as a table: every route family x every kind of credential x {oss, enterprise} x
 * {setup lock, dashboard auth enabled}, with the exact status and nothing secret in the errors.
 */
type Edition = "oss" | "enterprise";
type Lock = "setup-locked" | "auth-enabled";

interface Family {
  name: string;
  method: string;
  path: string;
  json?: unknown;
  /** The scope an API key needs; undefined for a route the table does not declare. */
  permission?: string;
  enterprise?: boolean;
}

const FAMILIES: Family[] = [
  { name: "providers read", method: "GET", path: "/api/providers", permission: "ModelProvider:View" },
  { name: "providers write", method: "PUT", path: "/api/providers/openai", json: { network_config: { base_url: "http://127.0.0.1:9/v1" } }, permission: "ModelProvider:Update" },
  { name: "admin account", method: "GET", path: "/api/config/auth", permission: "Config:View" },
  { name: "management API keys", method: "GET", path: "/api/api-keys", permission: "APIKeys:View", enterprise: true },
  { name: "RBAC roles", method: "GET", path: "/api/governance/rbac/roles", permission: "Roles:View", enterprise: true },
  { name: "audit logs", method: "GET", path: "/api/governance/audit-logs", permission: "AuditLogs:View", enterprise: true },
  { name: "a route the table does not declare", method: "GET", path: "/api/undeclared/thing" },
];

type Credential = "no auth" | "setup token" | "wrong setup token" | "session" | "basic" | "wrong basic" | "API key with scope" | "API key without scope" | "virtual key" | "x-api-key";
const CREDENTIALS: Credential[] = ["no auth", "setup token", "wrong setup token", "session", "basic", "wrong basic", "API key with scope", "API key without scope", "virtual key", "x-api-key"];

const VIRTUAL_KEY = "sk-gw-virtual-key-value-123456";
const WRONG_SETUP = "not-the-setup-token";
const WRONG_PASSWORD = "not the admin password";
const NEVER_ISSUED_KEY = "gwk_never-issued-key-value-000000000000000000";

/** What the spec promises: `ok` is the route's own answer for a caller allowed through. */
function expectedStatus(edition: Edition, lock: Lock, family: Family, credential: Credential): number | "ok" {
  if (family.enterprise && edition === "oss") return 404;
  const keyWorks = edition === "enterprise";
  const locked: Record<Credential, number | "ok"> = {
    "no auth": 401,
    "setup token": "ok",
    "wrong setup token": 403,
    session: 401,
    basic: 401,
    "wrong basic": 401,
    "API key with scope": keyWorks ? "ok" : 401,
    "API key without scope": keyWorks ? 403 : 401,
    "virtual key": 401,
    "x-api-key": 401,
  };
  const enabled: Record<Credential, number | "ok"> = {
    ...locked,
    "setup token": 401,
    "wrong setup token": 401,
    session: "ok",
    basic: "ok",
  };
  return (lock === "setup-locked" ? locked : enabled)[credential];
}

interface Deployment {
  gw: TestGateway;
  headers: Record<Credential, Record<string, string>>;
  secrets: string[];
}

async function deploy(edition: Edition, lock: Lock): Promise<Deployment> {
  const gw = await startGateway({
    edition,
    // The rows' writes point at a local address: every credential the matrix allows may do so here.
    network: { allow_private_addresses: true },
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-provider-secret-77" }], network_config: { base_url: "http://127.0.0.1:9/v1" } } },
    ...(lock === "auth-enabled" ? { auth: AUTH_CONFIG } : {}),
  });
  const withScope = edition === "enterprise" ? await createApiKey(gw, "scoped", FAMILIES.flatMap((family) => family.permission ?? [])) : NEVER_ISSUED_KEY;
  const withoutScope = edition === "enterprise" ? await createApiKey(gw, "unscoped", ["Dashboard:View"]) : NEVER_ISSUED_KEY;
  const session = lock === "auth-enabled" ? await login(gw, ADMIN.username, ADMIN.password) : "gws_not-a-session-because-auth-is-off";
  const headers: Deployment["headers"] = {
    "no auth": {},
    "setup token": { "x-gateway-setup-token": SETUP_TOKEN },
    "wrong setup token": { "x-gateway-setup-token": WRONG_SETUP },
    session: bearer(session),
    basic: bearer(basicToken(ADMIN.username, ADMIN.password)),
    "wrong basic": bearer(basicToken(ADMIN.username, WRONG_PASSWORD)),
    "API key with scope": bearer(withScope),
    "API key without scope": bearer(withoutScope),
    "virtual key": bearer(VIRTUAL_KEY),
    "x-api-key": { "x-api-key": VIRTUAL_KEY },
  };
  return { gw, headers, secrets: [SETUP_TOKEN, WRONG_SETUP, ADMIN.password, WRONG_PASSWORD, withScope, withoutScope, session, VIRTUAL_KEY, "sk-upstream-provider-secret-77"] };
}

for (const edition of ["oss", "enterprise"] as const) {
  for (const lock of ["setup-locked", "auth-enabled"] as const) {
    describe(`${edition}, ${lock}`, () => {
      let deployment: Deployment;
      beforeAll(async () => {
        deployment = await deploy(edition, lock);
      });
      afterAll(() => deployment.gw.close());

      for (const family of FAMILIES) {
        for (const credential of CREDENTIALS) {
          const expected = expectedStatus(edition, lock, family, credential);
          test(`${family.name} with ${credential} -> ${expected === "ok" ? "allowed" : expected}`, async () => {
            const response = await call(deployment.gw, family.path, { method: family.method, headers: deployment.headers[credential], json: family.json });
            if (expected === "ok") {
              // Allowed through the guard: the route answers, or the router says it does not exist.
              if (family.permission) expect(response.status).toBe(200);
              else if (credential === "API key with scope") await expectGatewayError(response, 403, { errorType: "policy_permission_denied" });
              else await expectGatewayError(response, 404, { errorType: "caller_route_not_found" });
              return;
            }
            const text = await response.clone().text();
            await expectGatewayError(response, expected);
            for (const secret of deployment.secrets) expect(text).not.toContain(secret);
            if (expected === 404) expect(text).toContain("enterprise edition");
          });
        }
      }
    });
  }
}
