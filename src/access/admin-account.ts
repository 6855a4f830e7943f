import { eq } from "drizzle-orm";
import { ConfigError } from "../config/load";
import { resolveEnvReference } from "../config/env-reference";
import type { GatewayConfig } from "../config/schema";
import type { Database } from "../db/client";
import { type AdminAccountRow, adminAccount } from "../db/schema";
import { badRequest } from "../http/errors";
import { hashPassword, verifyPassword } from "./passwords";
import type { SessionStore } from "./sessions";
import { sha256Hex } from "../crypto/sha256-hex";

export type AuthConfigSection = NonNullable<GatewayConfig["auth"]>;
export const MIN_PASSWORD_LENGTH = 8;

export interface AdminAccountChange {
  admin_username: string;
  /** Omitted: keep the current password (an account must already exist). */
  admin_password?: string;
  enabled: boolean;
}

export interface AdminSignInOptions {
  /** OpenID Connect providers are configured. */
  singleSignOn: boolean;
  /** The admin account may sign in with its password (`oidc.password_sign_in`). */
  passwordSignIn: boolean;
}

const ACCOUNT_ID = 1;
const VERIFIED_CACHE_MS = 5 * 60 * 1000;
const VERIFIED_CACHE_LIMIT = 1000;

/**
 * The dashboard admin account. Dashboard auth is active when the account exists and is enabled;
 * until then the setup lock guards the management API.
 */
export class AdminAccount {
  /**
   * Legacy basic auth sends the password with every request; a correct one is remembered in
   * memory for a few minutes instead of paying for argon2id each time.
   */
  private readonly recentlyVerified = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly sessions: SessionStore,
    private readonly signIn: AdminSignInOptions = { singleSignOn: false, passwordSignIn: true },
  ) {}

  current(): Promise<AdminAccountRow | undefined> {
    return this.db.select().from(adminAccount).where(eq(adminAccount.id, ACCOUNT_ID)).get();
  }

  /** Single sign-on keeps dashboard auth on even when the admin account is off or absent. */
  async isAuthActive(): Promise<boolean> {
    return this.signIn.singleSignOn || (await this.current())?.enabled === true;
  }

  /** True only for the admin's own credentials while dashboard auth is active and password sign-in allowed. */
  async verify(username: string, password: string): Promise<boolean> {
    const account = await this.current();
    if (account?.enabled !== true || account.username !== username || !this.signIn.passwordSignIn) return verifyPassword(password, undefined);
    // Keyed by the stored (salted) hash, so a password change invalidates every entry.
    const cacheKey = sha256Hex(`${account.passwordHash}\0${password}`);
    if ((this.recentlyVerified.get(cacheKey) ?? 0) > Date.now()) return true;
    const valid = await verifyPassword(password, account.passwordHash);
    if (valid) {
      if (this.recentlyVerified.size >= VERIFIED_CACHE_LIMIT) this.recentlyVerified.clear();
      this.recentlyVerified.set(cacheKey, Date.now() + VERIFIED_CACHE_MS);
    }
    return valid;
  }

  /** A change through the API; admin sessions end whenever the credentials or the switch change. */
  async configure(change: AdminAccountChange): Promise<AdminAccountRow> {
    const current = await this.current();
    if (!current && change.admin_password === undefined) throw badRequest("admin_password is required to create the admin account", "admin_password");
    return this.write(change, "api", current?.configFingerprint ?? null);
  }

  /**
   * config.json's `auth` section, applied at start when it changed since it was last applied, or
   * when the account was never changed through the API (so a rotated env password takes effect).
   */
  async applyConfig(section: AuthConfigSection | undefined, env: Record<string, string | undefined>): Promise<void> {
    if (!section) return;
    const fingerprint = sha256Hex(JSON.stringify(section));
    const current = await this.current();
    if (current?.source === "api" && current.configFingerprint === fingerprint) return;
    const enabled = section.enabled ?? true;
    const username = section.admin_username ?? "";
    const password = resolveEnvReference(section.admin_password ?? "", env);
    if (!username || !password) {
      if (!enabled && !current) return;
      throw new ConfigError(`config: field 'auth.${username ? "admin_password" : "admin_username"}' is required (an env.NAME reference must name a set variable)`);
    }
    if (password.length < MIN_PASSWORD_LENGTH) throw new ConfigError(`config: field 'auth.admin_password' must be at least ${MIN_PASSWORD_LENGTH} characters`);
    await this.write({ admin_username: username, admin_password: password, enabled }, "config", fingerprint);
  }

  private async write(change: AdminAccountChange, source: AdminAccountRow["source"], configFingerprint: string | null): Promise<AdminAccountRow> {
    const current = await this.current();
    const samePassword = change.admin_password === undefined || (current !== undefined && (await verifyPassword(change.admin_password, current.passwordHash)));
    const passwordHash = samePassword && current ? current.passwordHash : await hashPassword(change.admin_password!);
    const row: AdminAccountRow = { id: ACCOUNT_ID, username: change.admin_username, passwordHash, enabled: change.enabled, source, configFingerprint, updatedAt: new Date() };
    await this.db.insert(adminAccount).values(row).onConflictDoUpdate({ target: adminAccount.id, set: row });
    const credentialsChanged = !current || current.username !== row.username || current.passwordHash !== passwordHash || current.enabled !== row.enabled;
    if (credentialsChanged) await this.sessions.revokeAll("admin");
    return row;
  }
}
