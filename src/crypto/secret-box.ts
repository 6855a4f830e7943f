import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { gatewayMeta } from "../db/schema";

/**
 * `value` as JSON with object keys sorted (localeCompare) at every depth: the same configuration
 * always gives the same text, whatever order its fields came in. Stored fingerprints depend on this
 * exact text, so its ordering must not change.
 */
const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_, item) => (item && typeof item === "object" && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))) : item));

/** AES-256-GCM for secrets at rest: `v1.<iv>.<tag>.<ciphertext>`, all base64url. */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /**
   * A hash of `value` (its sorted JSON) keyed by the box's key, in hex: it changes when the
   * value does (a `config_hash`), and unlike a plain hash it cannot be used to confirm a guess
   * of a secret inside the value without the key.
   */
  fingerprint(value: unknown): string;
}

export function createSecretBox(keyMaterial: string): SecretBox {
  const key = createHash("sha256").update(keyMaterial).digest();
  // A key of its own for fingerprints, so they reveal nothing about the encryption key.
  const fingerprintKey = createHmac("sha256", key).update("fingerprint").digest();
  return {
    fingerprint: (value) => createHmac("sha256", fingerprintKey).update(sortedJson(value)).digest("hex"),
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), body].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("sealed value has an unknown format");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

const GENERATED_KEY = "encryption_key";

/**
 * The key comes from GATEWAY_ENCRYPTION_KEY. Without it a random key is generated once and kept
 * in the database, so a fresh install works; production deployments should set the variable.
 */
export async function secretBoxFor(db: Database, fromEnv: string | undefined): Promise<SecretBox> {
  if (fromEnv) return createSecretBox(fromEnv);
  const stored = await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, GENERATED_KEY)).get();
  if (stored) return createSecretBox(stored.value);
  const generated = randomBytes(32).toString("base64url");
  await db.insert(gatewayMeta).values({ key: GENERATED_KEY, value: generated }).onConflictDoNothing();
  const winner = await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, GENERATED_KEY)).get();
  console.warn("GATEWAY_ENCRYPTION_KEY is not set: secrets are encrypted with a key stored in the database");
  return createSecretBox(winner?.value ?? generated);
}
