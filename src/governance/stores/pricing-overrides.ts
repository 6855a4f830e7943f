import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governancePricingOverrides, type PricingOverrideRow } from "../../db/schema";
import { badRequest } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import type { PricingOverrideInput, PricingOverrideUpdateInput } from "../schemas";
import { RowCache } from "./row-cache";
import type { VirtualKeyStore } from "./virtual-keys";

/** What a price is looked up for. */
export interface PricedRequest {
  provider: string;
  model: string;
  /** The model's variant a unit price depends on (an image's quality and size): the catalogue prices `model@variant` where it lists one. */
  variant?: string;
  requestType: string;
  keyId?: string;
  virtualKeyId?: string;
}

export const pricingOverrideView = (row: PricingOverrideRow) => ({
  id: row.id,
  name: row.name,
  scope_kind: row.scopeKind,
  scope_id: row.scopeId,
  match_type: row.matchType,
  pattern: row.pattern,
  request_types: row.requestTypes,
  patch: row.patch,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** Narrower scopes win: a virtual key's price over a provider key's, over a provider's, over a global one. */
const SCOPE_RANK = { virtual_key: 3, provider_key: 2, provider: 1, global: 0 } as const;

function scopeApplies(row: PricingOverrideRow, request: PricedRequest): boolean {
  switch (row.scopeKind) {
    case "global":
      return true;
    case "provider":
      return row.scopeId === request.provider;
    case "provider_key":
      return row.scopeId === request.keyId;
    case "virtual_key":
      return row.scopeId === request.virtualKeyId;
  }
}

const patternMatches = (row: PricingOverrideRow, model: string) => (row.matchType === "exact" ? row.pattern === model : model.startsWith(row.pattern));

/** Most specific first: scope, then an exact name over a prefix, then the longer prefix. */
function moreSpecific(a: PricingOverrideRow, b: PricingOverrideRow): number {
  const exactFirst = Number(b.matchType === "exact") - Number(a.matchType === "exact");
  return SCOPE_RANK[b.scopeKind] - SCOPE_RANK[a.scopeKind] || exactFirst || b.pattern.length - a.pattern.length;
}

/** Operator prices that win over the shipped catalogue. */
export class PricingOverrideStore {
  readonly overrides = new RowCache<PricingOverrideRow>("pricing override");

  constructor(
    private readonly db: Database,
    private readonly refs: { providers: ProviderStore; virtualKeys: VirtualKeyStore },
  ) {}

  async load(): Promise<void> {
    await this.overrides.reload(() => this.db.select().from(governancePricingOverrides));
  }

  bestMatch(request: PricedRequest): PricingOverrideRow | undefined {
    if (this.overrides.size === 0) return undefined;
    const applicable = this.overrides.all().filter((row) => scopeApplies(row, request) && patternMatches(row, request.model) && (row.requestTypes.length === 0 || row.requestTypes.includes(request.requestType)));
    return applicable.sort(moreSpecific)[0];
  }

  async create(input: PricingOverrideInput): Promise<PricingOverrideRow> {
    const now = new Date();
    const row = this.checked({ id: crypto.randomUUID(), ...this.fieldsOf(input), createdAt: now, updatedAt: now });
    await this.db.insert(governancePricingOverrides).values(row);
    return this.overrides.set(row);
  }

  async update(id: string, input: PricingOverrideUpdateInput): Promise<PricingOverrideRow> {
    const current = this.overrides.require(id);
    const row = this.checked({ ...current, ...this.fieldsOf({ ...pricingOverrideView(current), ...input }), updatedAt: new Date() });
    await this.db.update(governancePricingOverrides).set(row).where(eq(governancePricingOverrides.id, id));
    return this.overrides.set(row);
  }

  async remove(id: string): Promise<void> {
    this.overrides.require(id);
    await this.db.delete(governancePricingOverrides).where(eq(governancePricingOverrides.id, id));
    this.overrides.delete(id);
  }

  /** A trailing `*` makes a prefix pattern. */
  private fieldsOf(input: PricingOverrideInput) {
    const wildcard = input.pattern.endsWith("*");
    const scopeKind = input.scope_kind ?? "global";
    return {
      name: input.name,
      scopeKind,
      scopeId: scopeKind === "global" ? null : (input.scope_id ?? null),
      matchType: input.match_type ?? (wildcard ? "prefix" : "exact"),
      pattern: wildcard ? input.pattern.slice(0, -1) : input.pattern,
      requestTypes: input.request_types ?? [],
      patch: Object.fromEntries(Object.entries(input.patch).filter(([, value]) => value !== undefined)),
    } as const;
  }

  private checked(row: PricingOverrideRow): PricingOverrideRow {
    if (row.scopeKind === "global") return row;
    if (!row.scopeId) throw badRequest(`scope_kind '${row.scopeKind}' needs a scope_id`, "scope_id");
    const { providers, virtualKeys } = this.refs;
    const exists =
      row.scopeKind === "provider" ? providers.get(row.scopeId) : row.scopeKind === "virtual_key" ? virtualKeys.keys.get(row.scopeId) : providers.list().some((provider) => provider.keys.some((key) => key.id === row.scopeId));
    if (!exists) throw badRequest(`${row.scopeKind.replace("_", " ")} '${row.scopeId}' does not exist`, "scope_id");
    return row;
  }
}
