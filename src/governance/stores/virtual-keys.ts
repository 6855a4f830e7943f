import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { sha256Hex } from "../../crypto/sha256-hex";
import type { Database } from "../../db/client";
import { governanceVirtualKeys, type VirtualKeyRow } from "../../db/schema";
import { badRequest, conflict } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import { checkBudgets, checkRateLimit } from "../limits/validate-limits";
import type { VirtualKeyCreateInput, VirtualKeyUpdateInput } from "../schemas";
import { type ProviderConfig, VIRTUAL_KEY_PREFIX } from "../../db/schema/types";
import type { Organization } from "./organization";
import { RowCache } from "./row-cache";

/** `sk-gw-` and 8 characters: enough to recognise a key, useless to use it. */
const SHOWN_PREFIX_LENGTH = VIRTUAL_KEY_PREFIX.length + 8;

const newValue = () => `${VIRTUAL_KEY_PREFIX}${randomBytes(24).toString("base64url")}`;

/**
 * Virtual keys: the value is shown once, on create and on rotate, and stored only as its
 * SHA-256; inference looks keys up by that hash, in memory.
 */
export class VirtualKeyStore {
  readonly keys = new RowCache<VirtualKeyRow>("virtual key");
  private readonly byHash = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly organization: Organization,
    private readonly providers: ProviderStore,
  ) {}

  async load(): Promise<void> {
    const rows = await this.keys.reload(() => this.db.select().from(governanceVirtualKeys));
    this.byHash.clear();
    for (const row of rows) this.byHash.set(row.keyHash, row.id);
  }

  findByValue(value: string): VirtualKeyRow | undefined {
    const id = this.byHash.get(sha256Hex(value));
    return id ? this.keys.get(id) : undefined;
  }

  async create(input: VirtualKeyCreateInput): Promise<{ row: VirtualKeyRow; value: string }> {
    this.assertNameFree(input.name);
    const value = newValue();
    const now = new Date();
    const row: VirtualKeyRow = {
      id: crypto.randomUUID(),
      name: input.name,
      description: input.description ?? "",
      isActive: input.is_active ?? input.active ?? true,
      keyHash: sha256Hex(value),
      keyPrefix: value.slice(0, SHOWN_PREFIX_LENGTH),
      ...this.membership(input),
      providerConfigs: this.checkProviderConfigs(input.provider_configs ?? []),
      budgets: checkBudgets(input.budgets, "budgets"),
      rateLimit: checkRateLimit(input.rate_limit, "rate_limit"),
      mcpConfigs: input.mcp_configs ?? [],
      mcpToolSearch: input.mcp_tool_search ?? null,
      agentGrants: input.agent_grants ?? [],
      allowedPrompts: input.allowed_prompts ?? [],
      sessionBudgets: input.session_budgets ?? null,
      resumableStreams: input.resumable_streams ?? false,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.insert(governanceVirtualKeys).values(row);
    return { row: this.remember(row), value };
  }

  /** Omitted fields keep their value; the key value only changes through `rotate`. */
  async update(id: string, input: VirtualKeyUpdateInput): Promise<VirtualKeyRow> {
    const current = this.keys.require(id);
    if (input.name !== undefined && input.name !== current.name) this.assertNameFree(input.name);
    const row: VirtualKeyRow = {
      ...current,
      name: input.name ?? current.name,
      description: input.description ?? current.description,
      isActive: input.is_active ?? input.active ?? current.isActive,
      ...this.membership({ team_id: input.team_id === undefined ? current.teamId : input.team_id, customer_id: input.customer_id === undefined ? current.customerId : input.customer_id }),
      providerConfigs: input.provider_configs === undefined ? current.providerConfigs : this.checkProviderConfigs(input.provider_configs, current.providerConfigs),
      budgets: input.budgets === undefined ? current.budgets : checkBudgets(input.budgets, "budgets", current.budgets),
      rateLimit: input.rate_limit === undefined ? current.rateLimit : checkRateLimit(input.rate_limit, "rate_limit"),
      mcpConfigs: input.mcp_configs ?? current.mcpConfigs,
      mcpToolSearch: input.mcp_tool_search === undefined ? current.mcpToolSearch : input.mcp_tool_search,
      agentGrants: input.agent_grants ?? current.agentGrants,
      allowedPrompts: input.allowed_prompts ?? current.allowedPrompts,
      sessionBudgets: input.session_budgets === undefined ? current.sessionBudgets : input.session_budgets,
      resumableStreams: input.resumable_streams ?? current.resumableStreams,
      updatedAt: new Date(),
    };
    await this.db.update(governanceVirtualKeys).set(row).where(eq(governanceVirtualKeys.id, id));
    return this.remember(row);
  }

  /** A new value; the old one stops working at once. */
  async rotate(id: string): Promise<{ row: VirtualKeyRow; value: string }> {
    const current = this.keys.require(id);
    const value = newValue();
    const row: VirtualKeyRow = { ...current, keyHash: sha256Hex(value), keyPrefix: value.slice(0, SHOWN_PREFIX_LENGTH), updatedAt: new Date() };
    await this.db.update(governanceVirtualKeys).set(row).where(eq(governanceVirtualKeys.id, id));
    this.byHash.delete(current.keyHash);
    return { row: this.remember(row), value };
  }

  async remove(id: string): Promise<void> {
    const current = this.keys.require(id);
    await this.db.delete(governanceVirtualKeys).where(eq(governanceVirtualKeys.id, id));
    this.keys.delete(id);
    this.byHash.delete(current.keyHash);
  }

  private remember(row: VirtualKeyRow): VirtualKeyRow {
    this.byHash.set(row.keyHash, row.id);
    return this.keys.set(row);
  }

  private assertNameFree(name: string) {
    if (this.keys.all().some((row) => row.name === name)) throw conflict(`a virtual key named '${name}' already exists`, "name");
  }

  /** A key belongs to one team, or one customer, or neither. */
  private membership(input: { team_id?: string | null; customer_id?: string | null }) {
    const teamId = input.team_id ?? null;
    const customerId = input.customer_id ?? null;
    if (teamId && customerId) throw badRequest("a virtual key belongs to a team or to a customer, not both", "customer_id");
    if (teamId && !this.organization.teams.get(teamId)) throw badRequest(`team '${teamId}' does not exist`, "team_id");
    if (customerId && !this.organization.customers.get(customerId)) throw badRequest(`customer '${customerId}' does not exist`, "customer_id");
    return { teamId, customerId };
  }

  private checkProviderConfigs(configs: readonly ProviderConfig[], current: readonly ProviderConfig[] = []): ProviderConfig[] {
    const seen = new Set<string>();
    return configs.map((config, index) => {
      const param = `provider_configs[${index}]`;
      const provider = this.providers.get(config.provider);
      if (!provider) throw badRequest(`provider '${config.provider}' is not configured`, `${param}.provider`);
      if (seen.has(config.provider)) throw badRequest(`provider '${config.provider}' is listed twice`, `${param}.provider`);
      seen.add(config.provider);
      const unknownKey = (config.key_ids ?? []).find((keyId) => !provider.keys.some((key) => key.id === keyId));
      if (unknownKey) throw badRequest(`provider '${config.provider}' has no key '${unknownKey}'`, `${param}.key_ids`);
      return {
        provider: config.provider,
        weight: config.weight ?? 1,
        allowed_models: config.allowed_models ?? [],
        key_ids: config.key_ids ?? [],
        budgets: checkBudgets(config.budgets, `${param}.budgets`, current.find((kept) => kept.provider === config.provider)?.budgets),
        ...(config.rate_limit ? { rate_limit: checkRateLimit(config.rate_limit, `${param}.rate_limit`) ?? undefined } : {}),
      };
    });
  }
}
