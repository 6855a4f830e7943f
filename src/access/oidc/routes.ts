import { Elysia, t } from "elysia";
import { calculatePKCECodeChallenge, randomPKCECodeVerifier, randomState, randomNonce } from "./pkce";
import type { SecretBox } from "../../crypto/secret-box";
import { notFound } from "../../http/errors";
import { htmlPage, replies, sentReplies } from "../../http/replies";
import { SignInOptions } from "../replies";
import type { AuditLog } from "../audit/store";
import { SESSION_COOKIE, servedOverHttps, sessionCookie } from "../cookies";
import type { SessionStore } from "../sessions";
import type { OidcUsers } from "./oidc-users";
import type { UsedStates } from "./used-states";
import { refusalPage, signedInPage } from "./pages";
import { type OidcProviderClient, roleFromClaims, SignInRefused } from "./provider-client";

export const LOGIN_COOKIE = "gateway_oidc_login";
const LOGIN_COOKIE_PATH = "/api/session/oidc";
const LOGIN_LIFETIME_MS = 10 * 60 * 1000;

export interface OidcRouteDeps {
  providers: ReadonlyMap<string, OidcProviderClient>;
  publicUrl?: string;
  passwordSignIn: boolean;
  users: OidcUsers;
  usedStates: UsedStates;
  sessions: SessionStore;
  box: SecretBox;
  audit?: AuditLog;
}

/** What the browser carries between the login redirect and the callback, sealed so it can be neither read nor forged. */
interface PendingSignIn {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  expiresAt: number;
}

/** Any origin will do: return paths are judged against it, never sent to it. */
const RETURN_BASE = new URL("http://gateway.invalid/");

/**
 * Only a path on this gateway. Read as the browser will read it (the URL parser drops tabs and
 * newlines and takes `\` for `/`, so `/<tab>/host` is `//host`): anything that lands on another
 * origin goes to the dashboard's start instead.
 */
function safeReturnTo(value: string | undefined): string {
  if (!value?.startsWith("/")) return "/";
  const url = URL.parse(value, RETURN_BASE.href);
  return url?.origin === RETURN_BASE.origin ? `${url.pathname}${url.search}${url.hash}` : "/";
}

const html = (body: string, status: number) => new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });

function clientIp(request: Request): string {
  return request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "";
}

/** /api/session/oidc: the providers a sign-in page offers, and each one's login and callback. */
export function oidcRoutes(deps: OidcRouteDeps) {
  const redirectUri = (request: Request, key: string) => `${(deps.publicUrl ?? new URL(request.url).origin).replace(/\/$/, "")}/api/session/oidc/${key}/callback`;
  const providerOf = (key: string) => {
    const provider = deps.providers.get(key);
    if (!provider) throw notFound(`sign-in provider '${key}' is not configured`, "caller_oidc_provider_not_found");
    return provider;
  };
  const audit = (request: Request, event: { initiator: string; action: string; outcome: "success" | "denied"; summary: Record<string, unknown>; target?: string }) =>
    deps.audit
      ?.append({
        initiator: { type: event.outcome === "success" ? "user" : "anonymous", id: event.initiator },
        action: event.action,
        target: { type: "Session", id: event.target ?? event.initiator },
        outcome: event.outcome,
        method: request.method,
        path: new URL(request.url).pathname,
        ip: clientIp(request),
        summary: event.summary,
      })
      .catch((error) => console.error("audit log: an event could not be written", error));

  return new Elysia({ name: "oidc-routes", prefix: "/api/session/oidc" })
    .get("/providers", () => ({
      providers: [...deps.providers.values()].map((provider) => ({ id: provider.key, display_name: provider.displayName, login_url: `/api/session/oidc/${provider.key}/login` })),
      password_sign_in: deps.passwordSignIn,
    }), replies({ 200: SignInOptions }, { summary: "List sign-in options", description: "The identity providers to sign in with, and whether a password is taken too." }))
    .get(
      "/:provider/login",
      async ({ params, query, request, cookie }) => {
        const provider = providerOf(params.provider);
        const pending: PendingSignIn = {
          provider: provider.key,
          state: randomState(),
          nonce: randomNonce(),
          verifier: randomPKCECodeVerifier(),
          returnTo: safeReturnTo(query.return_to),
          expiresAt: Date.now() + LOGIN_LIFETIME_MS,
        };
        const target = await provider
          .authorizationUrl({ redirectUri: redirectUri(request, provider.key), state: pending.state, nonce: pending.nonce, codeChallenge: await calculatePKCECodeChallenge(pending.verifier) })
          .catch((error: unknown) => error);
        if (!(target instanceof URL)) return html(refusalPage("Sign-in unavailable", target instanceof SignInRefused ? target.message : "the identity provider could not be reached"), 502);
        // Lax, not Strict: the provider sends the browser back with a cross-site navigation.
        cookie[LOGIN_COOKIE]!.set({ value: deps.box.seal(JSON.stringify(pending)), path: LOGIN_COOKIE_PATH, httpOnly: true, sameSite: "lax", secure: servedOverHttps(request), maxAge: LOGIN_LIFETIME_MS / 1000 });
        return new Response(null, { status: 302, headers: { location: target.toString(), "cache-control": "no-store" } });
      },
      {
        query: t.Object({ return_to: t.Optional(t.String({ description: "Path on the gateway to land on once signed in (default /)." })) }),
        ...sentReplies(
          {
            302: { description: "To the identity provider's sign-in, with a short-lived cookie holding this sign-in's state.", location: "The identity provider's authorization URL." },
            502: htmlPage("The identity provider could not be reached: a page saying so."),
          },
          { summary: "Start signing in with an identity provider", description: "Opened in the browser from the sign-in page." },
        ),
      },
    )
    .get(
      "/:provider/callback",
      async ({ params, query, request, cookie }) => {
        const provider = providerOf(params.provider);
        const pending = openPending(deps.box, cookie[LOGIN_COOKIE]?.value);
        cookie[LOGIN_COOKIE]!.set({ value: "", path: LOGIN_COOKIE_PATH, httpOnly: true, sameSite: "lax", maxAge: 0, expires: new Date(0) });
        const refuse = async (reason: string, message: string, status = 401, subject = "") => {
          await audit(request, { initiator: subject, action: "Session:OidcSignInRefused", outcome: "denied", summary: { provider: provider.key, reason } });
          return html(refusalPage("Sign-in refused", message), status);
        };
        if (query.error) return refuse("provider_error", `the identity provider answered: ${query.error_description ?? query.error}`);
        if (!pending || pending.provider !== provider.key || pending.expiresAt < Date.now() || !query.state || pending.state !== query.state) {
          return refuse("state_mismatch", "this sign-in was not started here, or took too long: start again from the sign-in page");
        }
        if (!query.code) return refuse("missing_code", "the identity provider sent no authorization code");
        if (!(await deps.usedStates.claim(pending.state, pending.expiresAt))) return refuse("state_reused", "this sign-in was already completed: start again from the sign-in page");
        try {
          const { claims } = await provider.redeem({ code: query.code, codeVerifier: pending.verifier, redirectUri: redirectUri(request, provider.key), nonce: pending.nonce });
          const subject = claims.sub!;
          const roleName = roleFromClaims(provider.settings.roles, claims);
          const roleId = roleName === undefined ? undefined : await deps.users.roleIdOf(roleName);
          if (roleName === undefined || roleId === undefined) {
            const message = roleName === undefined ? "your account has no role in this gateway: ask an administrator to add you to a group that is mapped to a gateway role" : `the role '${roleName}' your groups map to does not exist in this gateway`;
            // Someone refused now (a group taken away) keeps no session from an earlier sign-in.
            await endSessionsOf(deps, provider.key, subject);
            return refuse("no_role", message, 403, `${provider.key}:${subject}`);
          }
          const user = await deps.users.signIn(provider.key, { ...claims, sub: subject }, { id: roleId, name: roleName });
          const session = await deps.sessions.create("user", user.userId);
          cookie[SESSION_COOKIE]!.set(sessionCookie(request, session.token, session.expiresAt));
          await audit(request, { initiator: user.userId, action: "Session:OidcSignIn", outcome: "success", summary: { provider: provider.key, subject, username: user.username, role: roleName, created: user.created } });
          if (user.roleChange) await audit(request, { initiator: user.userId, action: "Users:RoleChangedByClaims", outcome: "success", target: user.userId, summary: { provider: provider.key, before: { role: user.roleChange.from }, after: { role: user.roleChange.to } } });
          return html(signedInPage(pending.returnTo), 200);
        } catch (error) {
          if (error instanceof SignInRefused) return refuse(error.reason, error.message);
          throw error;
        }
      },
      {
        query: t.Object({ code: t.Optional(t.String()), state: t.Optional(t.String()), error: t.Optional(t.String()), error_description: t.Optional(t.String()) }, { additionalProperties: true }),
        ...sentReplies(
          {
            200: htmlPage("Signed in: the session cookie is set and the page goes on to where the sign-in started."),
            401: htmlPage("The sign-in was refused (the provider's error, a state that does not match or was used, no code): a page saying why."),
            403: htmlPage("The account's groups map to no role of this gateway: a page saying so."),
          },
          { summary: "Finish signing in with an identity provider", description: "Where the identity provider sends the browser back." },
        ),
      },
    );
}

async function endSessionsOf({ users, sessions }: OidcRouteDeps, provider: string, subject: string): Promise<void> {
  const userId = await users.userOf(provider, subject);
  if (userId) await sessions.revokeAll("user", userId);
}

function openPending(box: SecretBox, sealed: unknown): PendingSignIn | undefined {
  if (typeof sealed !== "string" || !sealed) return undefined;
  try {
    return JSON.parse(box.open(sealed)) as PendingSignIn;
  } catch {
    return undefined;
  }
}
