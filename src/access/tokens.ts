import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { gatewayMeta } from "../db/schema";

/** A random bearer credential: a recognisable prefix and 256 bits of entropy. */
export const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Compares fixed-size digests, so neither the length nor the content of a secret leaks through timing. */
export function constantTimeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest());
}

/**
 * A server secret generated on first use and kept in the database, sealed with the secret box,
 * so every node sharing the database and every restart uses the same value.
 */
export async function persistedSecret(db: Database, box: SecretBox, metaKey: string): Promise<string> {
  const stored = await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, metaKey)).get();
  if (stored) return box.open(stored.value);
  await db.insert(gatewayMeta).values({ key: metaKey, value: box.seal(newToken("")) }).onConflictDoNothing();
  const winner = await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, metaKey)).get();
  return box.open(winner!.value);
}
