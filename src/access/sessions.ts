import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { type AccessSessionRow, accessSessions } from "../db/schema";
import { newToken } from "./tokens";
import { sha256Hex } from "../crypto/sha256-hex";

export type SessionKind = AccessSessionRow["kind"];

export const SESSION_TOKEN_PREFIX = "gws_";
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface IssuedSession {
  token: string;
  tokenHash: string;
  expiresAt: Date;
}

/** Dashboard and setup sessions, stored by token hash so they survive restarts and span nodes. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  async create(kind: SessionKind, subject: string): Promise<IssuedSession> {
    const now = new Date();
    await this.db.delete(accessSessions).where(lte(accessSessions.expiresAt, now));
    const token = newToken(SESSION_TOKEN_PREFIX);
    const tokenHash = sha256Hex(token);
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
    await this.db.insert(accessSessions).values({ tokenHash, kind, subject, createdAt: now, expiresAt });
    return { token, tokenHash, expiresAt };
  }

  /** The live session a token names, if any. */
  find(token: string): Promise<AccessSessionRow | undefined> {
    return this.db
      .select()
      .from(accessSessions)
      .where(and(eq(accessSessions.tokenHash, sha256Hex(token)), gt(accessSessions.expiresAt, new Date())))
      .get();
  }

  async revoke(tokenHash: string): Promise<void> {
    await this.db.delete(accessSessions).where(eq(accessSessions.tokenHash, tokenHash));
  }

  /** Ends every session of a kind, or only a subject's (a deleted user's, for instance). */
  async revokeAll(kind: SessionKind, subject?: string): Promise<void> {
    const ofKind = eq(accessSessions.kind, kind);
    await this.db.delete(accessSessions).where(subject === undefined ? ofKind : and(ofKind, eq(accessSessions.subject, subject)));
  }
}
