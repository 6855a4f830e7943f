import { lte } from "drizzle-orm";
import { sha256Hex } from "../../crypto/sha256-hex";
import type { Database } from "../../db/client";
import { oidcUsedStates } from "../../db/schema";

/**
 * A sign-in's state is good for one callback: the sealed login cookie could otherwise be sent
 * again with a fresh code for the same authorization request and open a second session. Kept in
 * the database, so a replay to another node is refused too, until the login would have expired.
 */
export class UsedStates {
  constructor(private readonly db: Database) {}

  /** Whether this is the state's first use; records it. */
  async claim(state: string, expiresAt: number): Promise<boolean> {
    await this.db.delete(oidcUsedStates).where(lte(oidcUsedStates.expiresAt, new Date()));
    const inserted = await this.db
      .insert(oidcUsedStates)
      .values({ stateHash: sha256Hex(state), expiresAt: new Date(expiresAt) })
      .onConflictDoNothing()
      .returning({ stateHash: oidcUsedStates.stateHash });
    return inserted.length === 1;
  }
}
