import { asc, count, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type ManagementApiKeyRow, managementApiKeys } from "../../db/schema";
import { conflict, notFound } from "../../http/errors";
import { containsText } from "../../db/contains-text";
import { knownPermissionIds } from "../permissions";
import { newToken } from "../tokens";
import { sha256Hex } from "../../crypto/sha256-hex";
import type { ApiKeyCreateInput, ApiKeyListQuery, ApiKeyUpdateInput } from "./schemas";
import { parseTimestamp } from "../../http/timestamps";

export const API_KEY_PREFIX = "gwk_";
/** `gwk_` and the first 8 random characters: enough to recognise a key, useless to use it. */
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export interface ApiKeyView {
  id: string;
  name: string;
  description: string | null;
  scopes: number[];
  key_prefix: string;
  expires_at: string | null;
  created_by: { type: string; id: string };
  /** The user the key belongs to and dies with; null for a key of the gateway's own. */
  owner_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export type ApiKeyLookup = { status: "live"; key: ManagementApiKeyRow } | { status: "expired" | "unknown" };

/** Management API keys (spec 2.4, 4.2, 4.3); the value is shown once and stored only as a hash. */
export class ApiKeyStore {
  constructor(private readonly db: Database) {}

  async create(input: ApiKeyCreateInput, creator: { type: string; id: string }): Promise<{ api_key: ApiKeyView; key: string }> {
    const scopes = knownPermissionIds(input.scopes ?? [], "scopes");
    await this.assertNameFree(input.name);
    const key = newToken(API_KEY_PREFIX);
    const now = new Date();
    const row: ManagementApiKeyRow = {
      id: crypto.randomUUID(),
      name: input.name,
      description: input.description ?? null,
      keyHash: sha256Hex(key),
      keyPrefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      scopes,
      expiresAt: input.expires_at ? parseTimestamp(input.expires_at) : null,
      // A key a user creates is theirs: deleting the user (a person who left) deletes it.
      ownerUserId: creator.type === "user" ? creator.id : null,
      createdByType: creator.type,
      createdById: creator.id,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.insert(managementApiKeys).values(row);
    return { api_key: view(row), key };
  }

  async list(query: ApiKeyListQuery) {
    const where = query.search ? containsText(managementApiKeys.name, query.search) : undefined;
    const offset = query.offset ?? 0;
    const page = this.db.select().from(managementApiKeys).where(where).orderBy(asc(managementApiKeys.createdAt), asc(managementApiKeys.name));
    // SQLite reads OFFSET only after a LIMIT.
    const rows = await page.limit(query.limit ?? Number.MAX_SAFE_INTEGER).offset(offset);
    const [total] = await this.db.select({ value: count() }).from(managementApiKeys).where(where);
    return { api_keys: rows.map(view), count: rows.length, total_count: total?.value ?? 0, limit: query.limit ?? 0, offset };
  }

  async require(id: string): Promise<ApiKeyView> {
    return view(await this.requireRow(id));
  }

  async update(id: string, input: ApiKeyUpdateInput): Promise<ApiKeyView> {
    const current = await this.requireRow(id);
    if (input.name !== undefined && input.name !== current.name) await this.assertNameFree(input.name);
    const changes = {
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      scopes: input.scopes === undefined ? current.scopes : knownPermissionIds(input.scopes, "scopes"),
      expiresAt: input.expires_at === undefined ? current.expiresAt : input.expires_at === null ? null : parseTimestamp(input.expires_at),
      updatedAt: new Date(),
    };
    await this.db.update(managementApiKeys).set(changes).where(eq(managementApiKeys.id, id));
    return view({ ...current, ...changes });
  }

  async remove(id: string): Promise<void> {
    await this.requireRow(id);
    await this.db.delete(managementApiKeys).where(eq(managementApiKeys.id, id));
  }

  /** What a presented bearer value is: a live key, an expired one, or nothing we issued. */
  async lookup(presented: string): Promise<ApiKeyLookup> {
    const key = await this.db.select().from(managementApiKeys).where(eq(managementApiKeys.keyHash, sha256Hex(presented))).get();
    if (!key) return { status: "unknown" };
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) return { status: "expired" };
    return { status: "live", key };
  }

  private async requireRow(id: string): Promise<ManagementApiKeyRow> {
    const row = await this.db.select().from(managementApiKeys).where(eq(managementApiKeys.id, id)).get();
    if (!row) throw notFound(`API key '${id}' does not exist`, "caller_api_key_not_found");
    return row;
  }

  private async assertNameFree(name: string): Promise<void> {
    if (await this.db.select({ id: managementApiKeys.id }).from(managementApiKeys).where(eq(managementApiKeys.name, name)).get()) {
      throw conflict(`an API key named '${name}' already exists`, "name");
    }
  }
}

function view(row: ManagementApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scopes: row.scopes,
    key_prefix: row.keyPrefix,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_by: { type: row.createdByType, id: row.createdById },
    owner_user_id: row.ownerUserId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
