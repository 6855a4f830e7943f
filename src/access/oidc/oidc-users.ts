import { and, eq } from "drizzle-orm";
import type { JWTPayload } from "jose";
import type { Database } from "../../db/client";
import { managementApiKeys, oidcIdentities, rbacRoles, rbacUsers } from "../../db/schema";

export interface SignedInUser {
  userId: string;
  username: string;
  created: boolean;
  /** Set when the claims moved the user to another role at this sign-in. */
  roleChange?: { from: string; to: string };
}

const usernameClaim = (claims: JWTPayload) =>
  [claims.preferred_username, claims.email, claims.sub].find((value): value is string => typeof value === "string" && value.length > 0) ?? "user";

/**
 * RBAC users who sign in through an OpenID Connect provider: created at their first sign-in
 * (no password, so only the provider lets them in) and given, at every sign-in, the role their
 * claims map to.
 */
export class OidcUsers {
  constructor(private readonly db: Database) {}

  roleIdOf(name: string): Promise<number | undefined> {
    return this.db
      .select({ id: rbacRoles.id })
      .from(rbacRoles)
      .where(eq(rbacRoles.name, name))
      .get()
      .then((row) => row?.id);
  }

  async signIn(provider: string, claims: JWTPayload & { sub: string }, role: { id: number; name: string }): Promise<SignedInUser> {
    const now = new Date();
    const known = await this.db
      .select({ userId: oidcIdentities.userId, username: rbacUsers.username, roleId: rbacUsers.roleId, role: rbacRoles.name })
      .from(oidcIdentities)
      .innerJoin(rbacUsers, eq(rbacUsers.id, oidcIdentities.userId))
      .innerJoin(rbacRoles, eq(rbacRoles.id, rbacUsers.roleId))
      .where(and(eq(oidcIdentities.provider, provider), eq(oidcIdentities.subject, claims.sub)))
      .get();
    if (known) {
      await this.db.update(oidcIdentities).set({ lastSignInAt: now }).where(eq(oidcIdentities.userId, known.userId));
      if (known.roleId === role.id) return { userId: known.userId, username: known.username, created: false };
      await this.db.update(rbacUsers).set({ roleId: role.id, updatedAt: now }).where(eq(rbacUsers.id, known.userId));
      return { userId: known.userId, username: known.username, created: false, roleChange: { from: known.role, to: role.name } };
    }
    const userId = crypto.randomUUID();
    const username = await this.freeUsername(usernameClaim(claims), provider);
    const name = typeof claims.name === "string" ? claims.name : "";
    await this.db.insert(rbacUsers).values({ id: userId, username, name, roleId: role.id, passwordHash: null, createdAt: now, updatedAt: now });
    await this.db.insert(oidcIdentities).values({ provider, subject: claims.sub, userId, createdAt: now, lastSignInAt: now });
    return { userId, username, created: true };
  }

  /** The user a provider's account signs in as, if it ever signed in. */
  userOf(provider: string, subject: string): Promise<string | undefined> {
    return this.db
      .select({ userId: oidcIdentities.userId })
      .from(oidcIdentities)
      .where(and(eq(oidcIdentities.provider, provider), eq(oidcIdentities.subject, subject)))
      .get()
      .then((row) => row?.userId);
  }

  /** The provider a user signs in with, if they are an OIDC user. */
  providerOf(userId: string): Promise<string | undefined> {
    return this.db
      .select({ provider: oidcIdentities.provider })
      .from(oidcIdentities)
      .where(eq(oidcIdentities.userId, userId))
      .get()
      .then((row) => row?.provider);
  }

  /** A user's identities and API keys go with them. */
  async forget(userId: string): Promise<void> {
    await this.db.delete(oidcIdentities).where(eq(oidcIdentities.userId, userId));
    await this.db.delete(managementApiKeys).where(eq(managementApiKeys.ownerUserId, userId));
  }

  /** The claimed name, or the same name qualified by the provider when a local user already has it. */
  private async freeUsername(wanted: string, provider: string): Promise<string> {
    const taken = await this.db.select({ id: rbacUsers.id }).from(rbacUsers).where(eq(rbacUsers.username, wanted)).get();
    return taken ? `${wanted}@${provider}` : wanted;
  }
}
