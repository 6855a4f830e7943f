import { and, asc, eq } from "drizzle-orm";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { providerKeys, providers } from "../db/schema";
import { advancedUpdatedAt, LocalWrites } from "../db/table-changes";
import { conflict, notFound } from "../http/errors";
import type { KeyBreakers } from "./key-breakers";
import { ConversationKeys } from "./conversation-keys";
import { type KeyHealth, UNCHECKED } from "./key-health";
import { keepRedactedSecrets } from "./key-secrets";
import { normalizeKey, onlyKnownNetworkFields, resolveFamily, type RuntimeKey, type RuntimeProvider, toRuntimeKey } from "./runtime";
import type { NetworkConfig, ProviderKeyInput, ProviderUpdateInput } from "../config/sections/providers";
import type { EnvReader } from "../config/env-reference";
import { type OutboundReach, policyFor } from "../outbound/reach";
import type { ProviderFamilies } from "../upstream/adapter";

type StoredKey = ReturnType<typeof normalizeKey>;

/**
 * Providers and their keys: persisted in libSQL, served to the hot path from memory.
 * Every write goes to the database first, then refreshes the in-memory copy.
 */
export class ProviderStore {
  private readonly byName = new Map<string, RuntimeProvider>();
  private readonly localWrites = new LocalWrites();
  /** The key each conversation was last answered on, for providers with `conversation_affinity`. */
  readonly conversations = new ConversationKeys();

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly readEnv: EnvReader,
    private readonly outbound: OutboundReach,
    /** Every key's circuit breaker and measured latency: what key selection reads on each request. */
    readonly health: KeyBreakers,
    /** The provider families a provider may belong to, each with its adapter. */
    readonly families: ProviderFamilies,
  ) {}

  /**
   * Reads every provider again; requests in flight meanwhile see the old set or the new one, never
   * a part. A read that one of this store's own writes overtook is made again, or it would undo it.
   */
  async load(): Promise<void> {
    const [rows, keyRows] = await this.localWrites.readUnraced(() =>
      Promise.all([this.db.select().from(providers), this.db.select().from(providerKeys).orderBy(asc(providerKeys.position))]),
    );
    const loaded = rows.map((row) => this.runtimeOf(row, keyRows.filter((keyRow) => keyRow.provider === row.name)));
    this.byName.clear();
    for (const provider of loaded) this.byName.set(provider.name, provider);
  }

  list(): RuntimeProvider[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): RuntimeProvider | undefined {
    return this.byName.get(name);
  }

  require(name: string): RuntimeProvider {
    const provider = this.byName.get(name);
    if (!provider) throw notFound(`provider '${name}' is not configured`, "caller_provider_not_found");
    return provider;
  }

  requireKey(providerName: string, keyId: string): RuntimeKey {
    const key = this.require(providerName).keys.find((candidate) => candidate.id === keyId);
    if (!key) throw notFound(`provider '${providerName}' has no key '${keyId}'`, "caller_key_not_found");
    return key;
  }

  /** `privateNetworkAllowed`: whether the writer may point it at loopback and private addresses (config.json's providers may). */
  async create(name: string, input: ProviderUpdateInput, privateNetworkAllowed = true): Promise<RuntimeProvider> {
    if (this.byName.has(name)) throw conflict(`provider '${name}' already exists`, "provider");
    const network = onlyKnownNetworkFields(input.network_config ?? {});
    resolveFamily(this.families, name, input.custom_provider_config, network);
    const keys = this.normalizeKeys(name, input.keys ?? [], []);
    const now = new Date();
    await this.db.transaction(async (tx) => {
      await tx.insert(providers).values({ name, networkConfig: network, customProviderConfig: input.custom_provider_config ?? null, privateNetworkAllowed, createdAt: now, updatedAt: now });
      for (const [position, key] of keys.entries()) await tx.insert(providerKeys).values(this.keyRow(name, position, key, now));
    });
    return this.refresh(name);
  }

  /** Replaces the provider's settings; `keys`, when given, replaces the key list whole. `privateNetworkAllowed` is set when given. */
  async update(name: string, input: ProviderUpdateInput, privateNetworkAllowed?: boolean): Promise<RuntimeProvider> {
    const current = this.require(name);
    const network = input.network_config ? onlyKnownNetworkFields(input.network_config) : current.network;
    const custom = input.custom_provider_config ?? current.customProviderConfig;
    resolveFamily(this.families, name, custom, network);
    const keys = input.keys ? this.normalizeKeys(name, input.keys, current.keys) : undefined;
    const now = new Date();
    await this.db.transaction(async (tx) => {
      await tx.update(providers).set({ networkConfig: network, customProviderConfig: custom, privateNetworkAllowed, updatedAt: now }).where(eq(providers.name, name));
      if (!keys) return;
      await tx.delete(providerKeys).where(eq(providerKeys.provider, name));
      for (const [position, key] of keys.entries()) await tx.insert(providerKeys).values(this.keyRow(name, position, key, now, current.keys));
    });
    return this.refresh(name);
  }

  async remove(name: string): Promise<void> {
    this.require(name);
    await this.db.delete(providers).where(eq(providers.name, name));
    this.byName.delete(name);
    this.localWrites.wrote();
  }

  async addKey(providerName: string, input: ProviderKeyInput, privateNetworkAllowed?: boolean): Promise<RuntimeKey> {
    const provider = this.require(providerName);
    if (input.id && provider.keys.some((key) => key.id === input.id)) throw conflict(`provider '${providerName}' already has a key '${input.id}'`, "id");
    const [key] = this.normalizeKeys(providerName, [input], [], "");
    const now = new Date();
    await this.db.insert(providerKeys).values(this.keyRow(providerName, provider.keys.length, key!, now));
    await this.touch(providerName, now, privateNetworkAllowed);
    return this.requireKey(providerName, key!.id);
  }

  /** Replaces one key's configuration whole; its id stays, redacted secrets keep their stored value. */
  async updateKey(providerName: string, keyId: string, input: ProviderKeyInput, privateNetworkAllowed?: boolean): Promise<RuntimeKey> {
    const existing = this.requireKey(providerName, keyId);
    const [key] = this.normalizeKeys(providerName, [{ ...input, id: keyId }], [existing], "");
    const now = new Date();
    const row = this.keyRow(providerName, 0, key!, now, [existing]);
    const { position: _position, createdAt: _createdAt, ...changes } = row;
    await this.db.update(providerKeys).set(changes).where(and(eq(providerKeys.provider, providerName), eq(providerKeys.id, keyId)));
    await this.touch(providerName, now, privateNetworkAllowed);
    return this.requireKey(providerName, keyId);
  }

  async removeKey(providerName: string, keyId: string): Promise<void> {
    this.requireKey(providerName, keyId);
    await this.db.delete(providerKeys).where(and(eq(providerKeys.provider, providerName), eq(providerKeys.id, keyId)));
    await this.touch(providerName, new Date());
  }

  private normalizeKeys(provider: string, inputs: ProviderKeyInput[], existing: RuntimeKey[], paramPrefix = "keys"): StoredKey[] {
    const seen = new Set<string>();
    return inputs.map((input, index) => {
      const param = paramPrefix ? `${paramPrefix}[${index}].` : "";
      const previous = existing.find((key) => key.id === input.id)?.config;
      const key = normalizeKey(keepRedactedSecrets(input, previous), provider, param);
      if (seen.has(key.id)) throw conflict(`key id '${key.id}' appears twice`, `${param}id`);
      const owner = this.keyOwner(key.id);
      // Key ids are unique across providers: `x-gw-api-key-id` names a key without its provider.
      if (owner && owner !== provider) throw conflict(`key id '${key.id}' is already used by provider '${owner}'`, `${param}id`);
      seen.add(key.id);
      return key;
    });
  }

  private keyOwner(keyId: string): string | undefined {
    return this.list().find((provider) => provider.keys.some((key) => key.id === keyId))?.name;
  }

  private keyRow(provider: string, position: number, key: StoredKey, now: Date, existing: RuntimeKey[] = []) {
    // Keyed: the configuration holds the key's secrets, which a plain hash would let anyone who reads it confirm by guessing.
    const configHash = this.secrets.fingerprint(key);
    const previous = existing.find((candidate) => candidate.id === key.id);
    const unchanged = previous?.configHash === configHash;
    return {
      id: key.id,
      provider,
      position,
      name: key.name,
      enabled: key.enabled,
      weight: key.weight,
      configHash,
      status: unchanged ? previous.status : UNCHECKED,
      description: unchanged ? previous.description : "",
      reachedModels: unchanged ? [...previous.reachedModels] : [],
      sealedConfig: this.secrets.seal(JSON.stringify(key)),
      createdAt: now,
      updatedAt: now,
    };
  }

  /**
   * Records a key's health check: its status, description and the models it listed. updated_at
   * moves too, so the other nodes on the database pick the result up with their next check.
   */
  async recordHealth(providerName: string, keyId: string, health: KeyHealth): Promise<RuntimeKey> {
    const key = this.requireKey(providerName, keyId);
    const checked = { status: health.status, description: health.description, reachedModels: health.models };
    const updatedAt = advancedUpdatedAt(providerKeys.updatedAt, Date.now());
    await this.db.update(providerKeys).set({ ...checked, updatedAt }).where(and(eq(providerKeys.provider, providerName), eq(providerKeys.id, keyId)));
    this.localWrites.wrote();
    return Object.assign(key, checked);
  }

  private async touch(name: string, now: Date, privateNetworkAllowed?: boolean) {
    await this.db.update(providers).set({ updatedAt: now, privateNetworkAllowed }).where(eq(providers.name, name));
    await this.refresh(name);
  }

  private async refresh(name: string): Promise<RuntimeProvider> {
    const row = await this.db.select().from(providers).where(eq(providers.name, name)).get();
    if (!row) throw notFound(`provider '${name}' is not configured`, "caller_provider_not_found");
    const keyRows = await this.db.select().from(providerKeys).where(eq(providerKeys.provider, name)).orderBy(asc(providerKeys.position));
    const runtime = this.runtimeOf(row, keyRows);
    this.byName.set(name, runtime);
    this.localWrites.wrote();
    return runtime;
  }

  private runtimeOf(row: typeof providers.$inferSelect, keyRows: Array<typeof providerKeys.$inferSelect>): RuntimeProvider {
    const name = row.name;
    const network = row.networkConfig as NetworkConfig;
    const { adapter, baseUrl } = resolveFamily(this.families, name, row.customProviderConfig, network);
    return {
      name,
      adapter,
      baseUrl,
      network,
      customProviderConfig: row.customProviderConfig,
      readEnv: this.readEnv,
      outbound: policyFor(this.outbound, row.privateNetworkAllowed),
      keys: keyRows.map((keyRow) =>
        toRuntimeKey(JSON.parse(this.secrets.open(keyRow.sealedConfig)), { configHash: keyRow.configHash, status: keyRow.status, description: keyRow.description, reachedModels: keyRow.reachedModels }),
      ),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
