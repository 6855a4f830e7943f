import { Elysia } from "elysia";
import type { EnvReferences } from "../config/env-reference";
import type { GatewayConfig } from "../config/schema";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { AdminAccount } from "./admin-account";
import { apiKeyRoutes } from "./api-keys/routes";
import { ApiKeyStore } from "./api-keys/store";
import { AuditRecorder } from "./audit/recorder";
import { auditRoutes } from "./audit/routes";
import { AuditLog } from "./audit/store";
import { authConfigRoutes } from "./auth-config-routes";
import { Authenticator } from "./authenticate";
import { accessGuard } from "./guard";
import { RoleStore } from "./rbac/roles";
import { rbacRoutes } from "./rbac/routes";
import { UserStore } from "./rbac/users";
import { sessionRoutes } from "./session-routes";
import { SessionStore } from "./sessions";
import { SetupLock } from "./setup-lock";
import { persistedSecret } from "./tokens";
import { DEFAULT_BODY_TIMEOUT_SECONDS, DEFAULT_MAX_JSON_DEPTH } from "../http/request-bodies";
import { OidcUsers } from "./oidc/oidc-users";
import { OidcProviderClient } from "./oidc/provider-client";
import { oidcRoutes } from "./oidc/routes";
import { UsedStates } from "./oidc/used-states";
import type { Serving } from "../http/serving";

export { principalOf, noteAudit } from "./request-context";
export type { Principal } from "./principal";

export interface AccessControlOptions {
  db: Database;
  config: GatewayConfig;
  env: Record<string, string | undefined>;
  secrets: SecretBox;
  envReferences: EnvReferences;
  /** The server once it listens: the guard reads the caller's address from it. */
  serving: Serving;
}

const AUDIT_KEY_META = "audit_signing_key";

/**
 * Sessions, the setup lock, RBAC, management API keys and the audit log. `guard` goes in
 * front of every route; `routes` serves /api/session, /api/config/auth and, in enterprise,
 * /api/api-keys, /api/governance/rbac and /api/governance/audit-logs.
 */
export async function createAccessControl({ db, config, env, secrets, envReferences, serving }: AccessControlOptions) {
  const edition = config.edition ?? "oss";
  const sessions = new SessionStore(db);
  const providers = new Map(Object.entries(config.oidc?.providers ?? {}).map(([key, settings]) => [key, new OidcProviderClient(key, settings, env)]));
  const passwordSignIn = config.oidc?.password_sign_in ?? true;
  const admin = new AdminAccount(db, sessions, { singleSignOn: providers.size > 0, passwordSignIn });
  await admin.applyConfig(config.auth, env);
  // Turning password sign-in off also ends the admin sessions it opened before.
  if (!passwordSignIn) await sessions.revokeAll("admin");
  const setupLock = await SetupLock.open({ configured: config.setup_token, env, db, box: secrets }, sessions);
  // A worker of `server.workers` shares the first process's database, token and terminal: that one has printed it.
  if (!env.GATEWAY_WORKER && !(await admin.isAuthActive())) setupLock.announce();
  const roles = new RoleStore(db);
  await roles.seedBuiltins();
  const oidcUsers = new OidcUsers(db);
  const users = new UserStore(db, roles, sessions, admin, oidcUsers);
  const apiKeys = new ApiKeyStore(db);
  const authenticator = new Authenticator({ edition, admin, sessions, users, apiKeys, setupLock, userSessions: edition === "enterprise" || providers.size > 0 });
  const audit = edition === "enterprise" ? new AuditLog(db, env.GATEWAY_AUDIT_SIGNING_KEY || (await persistedSecret(db, secrets, AUDIT_KEY_META))) : undefined;
  const endSessionUrl = async (userId: string, request: Request) => {
    const provider = providers.get((await oidcUsers.providerOf(userId)) ?? "");
    return provider?.endSessionUrl(`${(config.oidc?.public_url ?? new URL(request.url).origin).replace(/\/$/, "")}/`);
  };

  /**
   * The dashboard user behind `Authorization: Bearer gws_...` (a session of a user signed in with a
   * password or single sign-on), for the MCP doors that admit users by id or role.
   */
  const sessionUser = async (request: Request): Promise<{ id: string; roleId: number } | undefined> => {
    if (!/^Bearer\s+gws_/i.test(request.headers.get("authorization") ?? "")) return undefined;
    const principal = await authenticator.tryAuthenticate(request);
    if (principal?.type !== "user") return undefined;
    return { id: principal.id, roleId: (await users.require(principal.id)).role_id };
  };
  const routes = new Elysia({ name: "access-routes" })
    .use(sessionRoutes({ edition, admin, users, sessions, setupLock, authenticator, endSessionUrl }))
    .use(oidcRoutes({ providers, publicUrl: config.oidc?.public_url, passwordSignIn, users: oidcUsers, usedStates: new UsedStates(db), sessions, box: secrets, audit }))
    .use(authConfigRoutes(admin));
  const bodies = { serving, maxJsonDepth: config.server?.max_json_depth ?? DEFAULT_MAX_JSON_DEPTH, bodyTimeoutMs: (config.server?.body_timeout_seconds ?? DEFAULT_BODY_TIMEOUT_SECONDS) * 1000 };
  if (!audit) return { guard: accessGuard({ edition, authenticator, envReferences, ...bodies }), routes, sessionUser };

  routes.use(apiKeyRoutes(apiKeys)).use(rbacRoutes(roles, users)).use(auditRoutes(audit));
  /** What the gateway did on its own (no request behind it), entered in the audit log as the system's. */
  const recordSystemEvent = (event: { action: string; target: { type: string; id: string }; summary: Record<string, unknown> }) =>
    audit.append({ initiator: { type: "system", id: "gateway" }, ...event, outcome: "success", method: "", path: "", ip: "", summary: event.summary });
  return { guard: accessGuard({ edition, authenticator, envReferences, ...bodies, recorder: new AuditRecorder(audit) }), routes, recordSystemEvent, sessionUser };
}
