import { sha256Hex } from "../../crypto/sha256-hex";
import { and, eq } from "drizzle-orm";
import type { SecretBox } from "../../crypto/secret-box";
import type { Database } from "../../db/client";
import { type IdentityMode, mcpPerUserCredentials } from "../../db/schema";
import type { McpCaller } from "../caller";

/** Whose values a per-user credential holds: a virtual key, or else the caller's MCP session id. */
export interface CredentialOwner {
  mode: IdentityMode;
  /** The virtual key's id, or the SHA-256 of the session id: whoever presents a session id gets its values, so it is not kept. */
  identity: string;
}

export function ownerOf(caller: McpCaller): CredentialOwner | undefined {
  if (caller.virtualKey) return { mode: "virtual_key", identity: caller.virtualKey.id };
  if (caller.sessionId) return { mode: "session", identity: sha256Hex(caller.sessionId) };
  return undefined;
}

export interface StoredCredential {
  id: string;
  values: Record<string, string>;
  updatedAt: Date;
}

const ownedBy = (owner: CredentialOwner, mcpClientId: string) =>
  and(eq(mcpPerUserCredentials.mode, owner.mode), eq(mcpPerUserCredentials.identity, owner.identity), eq(mcpPerUserCredentials.mcpClientId, mcpClientId));

/** Each identity's header values for per_user_headers clients, keyed by (mode, identity, client), sealed. */
export class PerUserCredentialStore {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

  async find(owner: CredentialOwner, mcpClientId: string): Promise<StoredCredential | undefined> {
    const row = await this.db.select().from(mcpPerUserCredentials).where(ownedBy(owner, mcpClientId)).get();
    return row && { id: row.id, values: JSON.parse(this.box.open(row.sealedValues)) as Record<string, string>, updatedAt: row.updatedAt };
  }

  /** Replaces the owner's values for the client, keeping the credential's id when there was one. */
  async upsert(owner: CredentialOwner, mcpClientId: string, values: Record<string, string>): Promise<{ id: string; updatedAt: Date }> {
    const now = new Date();
    const sealedValues = this.box.seal(JSON.stringify(values));
    const [row] = await this.db
      .insert(mcpPerUserCredentials)
      // The owner's fields by name: a flow row passed as the owner carries an id of its own.
      .values({ id: crypto.randomUUID(), mode: owner.mode, identity: owner.identity, mcpClientId, sealedValues, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [mcpPerUserCredentials.mode, mcpPerUserCredentials.identity, mcpPerUserCredentials.mcpClientId],
        set: { sealedValues, updatedAt: now },
      })
      .returning({ id: mcpPerUserCredentials.id, updatedAt: mcpPerUserCredentials.updatedAt });
    return row!;
  }
}

/** The stored values for the client's live keys, or undefined when one is missing (the keys changed since). */
export function valuesForKeys(credential: StoredCredential | undefined, keys: readonly string[]): Record<string, string> | undefined {
  if (!credential) return undefined;
  const values: Record<string, string> = {};
  for (const key of keys) {
    const value = credential.values[key];
    if (!value) return undefined;
    values[key] = value;
  }
  return values;
}
