import { resolveEnvReference } from "../config/env-reference";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { forbidden, unauthenticated } from "./access-errors";
import { SETUP_COOKIE } from "./cookies";
import { localAdmin, type Principal } from "./principal";
import type { IssuedSession, SessionStore } from "./sessions";
import { constantTimeEqual, persistedSecret } from "./tokens";
import { sha256Hex } from "../crypto/sha256-hex";

export const SETUP_TOKEN_HEADER = "x-gateway-setup-token";
const GENERATED_TOKEN_KEY = "setup_token";

export interface SetupTokenSources {
  configured?: string;
  env: Record<string, string | undefined>;
  db: Database;
  box: SecretBox;
}

/**
 * The OSS setup lock (spec 5.6): until dashboard auth is active, management calls need the
 * operator's setup token, from GATEWAY_SETUP_TOKEN, config.json `setup_token`, or generated
 * once and kept in the database.
 */
export class SetupLock {
  /** Setup sessions are bound to the token they were exchanged for: a new token ends them. */
  readonly fingerprint: string;

  private constructor(
    private readonly token: string,
    readonly generated: boolean,
    private readonly sessions: SessionStore,
  ) {
    this.fingerprint = sha256Hex(token);
  }

  static async open(sources: SetupTokenSources, sessions: SessionStore): Promise<SetupLock> {
    const chosen = sources.env.GATEWAY_SETUP_TOKEN || resolveEnvReference(sources.configured ?? "", sources.env);
    if (chosen) return new SetupLock(chosen, false, sessions);
    return new SetupLock(await persistedSecret(sources.db, sources.box, GENERATED_TOKEN_KEY), true, sessions);
  }

  /** Tells a newcomer the generated token, since nothing else can unlock the dashboard. */
  announce(): void {
    if (!this.generated) return;
    console.warn(
      `setup token: ${this.token}\n  The management API is locked until dashboard authentication is configured: send this token in the ` +
        `X-Gateway-Setup-Token header (POST /api/session/setup exchanges it for a session cookie). Set GATEWAY_SETUP_TOKEN or config.json setup_token to choose your own.`,
    );
  }

  /** The header wins over the cookie: a wrong header is a 403 even with a valid cookie. */
  async admit(request: Request, cookies: Bun.CookieMap): Promise<Principal> {
    const header = request.headers.get(SETUP_TOKEN_HEADER);
    if (header !== null) {
      if (constantTimeEqual(header, this.token)) return localAdmin("setup", "setup");
      throw forbidden("the setup token is wrong", "caller_invalid_setup_token");
    }
    const session = await this.findSession(cookies.get(SETUP_COOKIE));
    if (session) return { ...localAdmin("setup", "setup", session.tokenHash), byCookie: true };
    throw unauthenticated(
      "the management API is locked until dashboard authentication is configured: send the setup token in the X-Gateway-Setup-Token header",
      "caller_setup_token_required",
    );
  }

  /** POST /api/session/setup: the token, checked like `admit`, becomes an HttpOnly cookie session. */
  async exchange(request: Request): Promise<IssuedSession> {
    const header = request.headers.get(SETUP_TOKEN_HEADER);
    if (header === null) throw unauthenticated("send the setup token in the X-Gateway-Setup-Token header", "caller_setup_token_required");
    if (!constantTimeEqual(header, this.token)) throw forbidden("the setup token is wrong", "caller_invalid_setup_token");
    return this.sessions.create("setup", this.fingerprint);
  }

  private async findSession(token: string | null) {
    if (!token) return undefined;
    const session = await this.sessions.find(token);
    return session?.kind === "setup" && session.subject === this.fingerprint ? session : undefined;
  }
}
