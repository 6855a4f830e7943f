import { Elysia, t } from "elysia";
import { badRequest } from "../http/errors";
import { type Edition, unauthenticated } from "./access-errors";
import type { AdminAccount } from "./admin-account";
import type { Authenticator } from "./authenticate";
import { expiredCookie, SESSION_COOKIE, SETUP_COOKIE, sessionCookie } from "./cookies";
import type { UserStore } from "./rbac/users";
import { noteAudit, principalOf } from "./request-context";
import type { SessionStore } from "./sessions";
import type { SetupLock } from "./setup-lock";
import { PERMISSIONS } from "./permissions";
import { holds } from "./principal";
import { replies } from "../http/replies";
import { AuthProbe, Caller, LoggedIn, LoggedOut, SetupStarted } from "./replies";

export interface SessionRouteDeps {
  edition: Edition;
  admin: AdminAccount;
  users: UserStore;
  sessions: SessionStore;
  setupLock: SetupLock;
  authenticator: Authenticator;
  /** Where the browser goes to end the identity provider's session too, for a user who signed in through one. */
  endSessionUrl(userId: string, request: Request): Promise<string | undefined>;
}

const LoginInput = t.Object({ username: t.String({ minLength: 1 }), password: t.String({ minLength: 1 }) });

/** Whose credentials these are: the admin's, or (enterprise) an RBAC user's. */
async function loginSubject({ admin, users, edition }: SessionRouteDeps, username: string, password: string) {
  if (await admin.verify(username, password)) return { kind: "admin" as const, subject: username };
  if (edition !== "enterprise") return undefined;
  const user = await users.verify(username, password);
  return user && { kind: "user" as const, subject: user.id };
}

/** /api/session: dashboard login and logout, the setup-token exchange, and the auth probe. */
export const sessionRoutes = (deps: SessionRouteDeps) =>
  new Elysia({ name: "session-routes", prefix: "/api/session" })
    .get("/is-auth-enabled", async ({ request }) => ({
      is_auth_enabled: await deps.admin.isAuthActive(),
      has_valid_token: (await deps.authenticator.tryAuthenticate(request)) !== undefined,
    }), replies({ 200: AuthProbe }, { summary: "Whether dashboard authentication is on" }))
    // What the dashboard shows the caller: a page or button they may not use is hidden or disabled.
    .get("/me", ({ request }) => {
      const principal = principalOf(request);
      return {
        type: principal.type,
        id: principal.id,
        local_admin: principal.localAdmin,
        edition: deps.edition,
        permissions: PERMISSIONS.filter((permission) => holds(principal, permission.name)).map((permission) => permission.name),
      };
    }, replies({ 200: Caller }, { summary: "Who the caller is", description: "The caller's kind, id, edition and permissions." }))
    .post(
      "/login",
      async ({ request, body, cookie }) => {
        if (!(await deps.admin.isAuthActive())) throw badRequest("dashboard authentication is not enabled", undefined, "caller_auth_not_enabled");
        const who = await loginSubject(deps, body.username, body.password);
        noteAudit(request, { initiator: { type: who?.kind ?? "anonymous", id: who?.subject ?? body.username }, targetId: body.username });
        if (!who) throw unauthenticated("invalid username or password", "caller_invalid_credentials");
        const session = await deps.sessions.create(who.kind, who.subject);
        cookie[SESSION_COOKIE]!.set(sessionCookie(request, session.token, session.expiresAt));
        return { message: "Login successful", token: session.token, expires_at: session.expiresAt.toISOString() };
      },
      { body: LoginInput, ...replies({ 200: LoggedIn }, { summary: "Log in to the dashboard", description: "Sets the session cookie." }) },
    )
    .post("/logout", async ({ request, cookie }) => {
      const { sessionTokenHash, type, id } = principalOf(request);
      if (sessionTokenHash) await deps.sessions.revoke(sessionTokenHash);
      cookie[SESSION_COOKIE]!.set(expiredCookie());
      cookie[SETUP_COOKIE]!.set(expiredCookie());
      const endSessionUrl = type === "user" ? await deps.endSessionUrl(id, request) : undefined;
      return endSessionUrl ? { message: "Logout successful", end_session_url: endSessionUrl } : { message: "Logout successful" };
    }, replies({ 200: LoggedOut }, { summary: "Log out of the dashboard" }))
    .post("/setup", async ({ request, cookie }) => {
      if (await deps.admin.isAuthActive()) throw badRequest("dashboard authentication is enabled: log in instead", undefined, "caller_auth_enabled");
      const session = await deps.setupLock.exchange(request);
      cookie[SETUP_COOKIE]!.set(sessionCookie(request, session.token, session.expiresAt));
      return { message: "Setup session started", expires_at: session.expiresAt.toISOString() };
    }, replies({ 200: SetupStarted }, { summary: "Exchange the setup token for a session", description: "While dashboard authentication is off: the setup token becomes a cookie." }));
