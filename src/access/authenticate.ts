import { type Edition, unauthenticated } from "./access-errors";
import type { AdminAccount } from "./admin-account";
import { API_KEY_PREFIX, type ApiKeyStore } from "./api-keys/store";
import { SESSION_COOKIE } from "./cookies";
import { localAdmin, type Principal } from "./principal";
import type { UserStore } from "./rbac/users";
import { SESSION_TOKEN_PREFIX, type SessionStore } from "./sessions";
import type { SetupLock } from "./setup-lock";
import { sha256Hex } from "../crypto/sha256-hex";
import { VIRTUAL_KEY_PREFIX } from "../db/schema/types";

export interface AuthenticatorDeps {
  edition: Edition;
  admin: AdminAccount;
  sessions: SessionStore;
  users: UserStore;
  apiKeys: ApiKeyStore;
  setupLock: SetupLock;
  /** Whether RBAC users' sessions count: in enterprise, and wherever single sign-on is configured. */
  userSessions: boolean;
}

/** Headers that carry virtual keys to the inference API; none of them opens a management route. */
const VIRTUAL_KEY_HEADERS = ["x-api-key", "x-gw-vk", "x-goog-api-key"];
const INVALID = "the credentials are invalid or expired";

/** The value of `Authorization: Bearer <x>` (or the legacy `Basic <x>`), if any. */
function bearerOf(request: Request): string | undefined {
  const match = /^(?:Bearer|Basic)\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/** Spec 5.2: virtual keys and `x-api-key` never authenticate a management call. */
function refuseVirtualKeys(request: Request, bearer: string | undefined): void {
  if (bearer?.startsWith(VIRTUAL_KEY_PREFIX) || VIRTUAL_KEY_HEADERS.some((header) => request.headers.has(header))) {
    throw unauthenticated("virtual keys and x-api-key are not accepted on management APIs", "caller_virtual_key_not_accepted");
  }
}

/**
 * Who is calling (spec 5). While dashboard auth is inactive the setup lock decides (an
 * enterprise API key also works); once active, a bearer token or the session cookie must.
 */
export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  async authenticate(request: Request): Promise<Principal> {
    const bearer = bearerOf(request);
    refuseVirtualKeys(request, bearer);
    const cookies = new Bun.CookieMap(request.headers.get("cookie") ?? "");
    if (!(await this.deps.admin.isAuthActive())) {
      if (bearer?.startsWith(API_KEY_PREFIX) && this.deps.edition === "enterprise") return this.apiKey(bearer);
      return this.deps.setupLock.admit(request, cookies);
    }
    const token = bearer ?? cookies.get(SESSION_COOKIE);
    if (!token) throw unauthenticated("authentication required: send Authorization: Bearer with a session token, a management API key or base64(username:password)");
    const principal = await this.ofToken(token);
    return bearer ? principal : { ...principal, byCookie: true };
  }

  private ofToken(token: string): Promise<Principal> {
    if (token.startsWith(API_KEY_PREFIX)) {
      if (this.deps.edition !== "enterprise") throw unauthenticated(INVALID, "caller_invalid_credentials");
      return this.apiKey(token);
    }
    if (token.startsWith(SESSION_TOKEN_PREFIX)) return this.session(token);
    return this.basic(token);
  }

  /** Like `authenticate`, but answers undefined instead of refusing. */
  async tryAuthenticate(request: Request): Promise<Principal | undefined> {
    try {
      return await this.authenticate(request);
    } catch {
      return undefined;
    }
  }

  private async apiKey(presented: string): Promise<Principal> {
    const found = await this.deps.apiKeys.lookup(presented);
    if (found.status === "expired") throw unauthenticated("the API key has expired", "caller_api_key_expired");
    if (found.status !== "live") throw unauthenticated(INVALID, "caller_invalid_credentials");
    return { type: "api_key", id: found.key.id, localAdmin: false, permissionIds: new Set(found.key.scopes) };
  }

  private async session(token: string): Promise<Principal> {
    const session = await this.deps.sessions.find(token);
    const tokenHash = sha256Hex(token);
    if (session?.kind === "admin" && session.subject === (await this.deps.admin.current())?.username) return localAdmin("admin", session.subject, tokenHash);
    if (session?.kind === "user" && this.deps.userSessions) {
      const permissionIds = await this.deps.users.permissionsOf(session.subject);
      if (permissionIds) return { type: "user", id: session.subject, localAdmin: false, permissionIds, sessionTokenHash: tokenHash };
    }
    throw unauthenticated(INVALID, "caller_invalid_credentials");
  }

  /** base64(`username:password`) of the admin account: the legacy form of basic auth. */
  private async basic(token: string): Promise<Principal> {
    const decoded = Buffer.from(token, "base64").toString("utf8");
    const separator = decoded.indexOf(":");
    if (separator > 0) {
      const username = decoded.slice(0, separator);
      if (await this.deps.admin.verify(username, decoded.slice(separator + 1))) return localAdmin("admin", username);
    }
    throw unauthenticated(INVALID, "caller_invalid_credentials");
  }
}
