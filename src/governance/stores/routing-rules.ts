import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governanceRoutingRules, type RoutingRuleRow } from "../../db/schema";
import { badRequest } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import { type Condition, compileCondition, prepareConditions } from "../routing/cel-conditions";
import type { RoutingRuleInput, RoutingRuleUpdateInput, RoutingScope } from "../schemas";
import type { RoutingTarget } from "../../db/schema/types";
import type { Organization } from "./organization";
import { RowCache } from "./row-cache";
import type { VirtualKeyStore } from "./virtual-keys";

export interface ActiveRule {
  row: RoutingRuleRow;
  matches: Condition;
}

export const routingRuleView = (row: RoutingRuleRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  enabled: row.enabled,
  cel_expression: row.celExpression,
  targets: row.targets,
  fallbacks: row.fallbacks,
  scope: row.scope,
  scope_id: row.scopeId,
  priority: row.priority,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const COMPLEXITY_VARIABLE = /\bcomplexity_(tier|score)\b/;

const scopeKey = (scope: RoutingScope, scopeId: string | null) => `${scope}:${scopeId ?? ""}`;

/** Routing rules, compiled once when written, grouped by scope in ascending priority. */
export class RoutingRuleStore {
  readonly rules = new RowCache<RoutingRuleRow>("routing rule");
  private byScope = new Map<string, ActiveRule[]>();

  constructor(
    private readonly db: Database,
    private readonly refs: { providers: ProviderStore; organization: Organization; virtualKeys: VirtualKeyStore },
  ) {}

  async load(): Promise<void> {
    const rows = await this.rules.reload(() => this.db.select().from(governanceRoutingRules));
    await prepareConditions(rows.map((row) => row.celExpression));
    this.reindex();
  }

  /** Whether an enabled rule's expression names `complexity_tier` or `complexity_score`. */
  readsComplexity = false;

  /** Whether any rule is enabled anywhere: while none is, routing looks nothing up. */
  get anyEnabled(): boolean {
    return this.byScope.size > 0;
  }

  /** The enabled rules of one scope, lowest priority number first. */
  inScope(scope: RoutingScope, scopeId: string | null): readonly ActiveRule[] {
    return this.byScope.get(scopeKey(scope, scopeId)) ?? [];
  }

  async create(input: RoutingRuleInput): Promise<RoutingRuleRow> {
    const now = new Date();
    await prepareConditions([input.cel_expression]);
    const row = this.checked({ id: crypto.randomUUID(), createdAt: now, updatedAt: now, ...this.fieldsOf(input) });
    await this.db.insert(governanceRoutingRules).values(row);
    return this.remember(row);
  }

  async update(id: string, input: RoutingRuleUpdateInput): Promise<RoutingRuleRow> {
    const current = this.rules.require(id);
    const merged = { ...routingRuleView(current), ...input };
    await prepareConditions([merged.cel_expression]);
    const row = this.checked({ ...current, ...this.fieldsOf(merged), updatedAt: new Date() });
    await this.db.update(governanceRoutingRules).set(row).where(eq(governanceRoutingRules.id, id));
    return this.remember(row);
  }

  async remove(id: string): Promise<void> {
    this.rules.require(id);
    await this.db.delete(governanceRoutingRules).where(eq(governanceRoutingRules.id, id));
    this.rules.delete(id);
    this.reindex();
  }

  private fieldsOf(input: RoutingRuleInput) {
    return {
      name: input.name,
      description: input.description ?? "",
      enabled: input.enabled ?? true,
      celExpression: input.cel_expression,
      targets: input.targets.map((target) => ({ provider: target.provider ?? "", model: target.model ?? "", key_id: target.key_id ?? "", weight: target.weight ?? 1 })),
      fallbacks: input.fallbacks ?? [],
      scope: input.scope ?? "global",
      scopeId: input.scope === "global" || input.scope === undefined ? null : (input.scope_id ?? null),
      priority: input.priority ?? 0,
    };
  }

  /** Every reference is checked at write time: expression, scope, providers, keys, fallbacks. */
  private checked(row: RoutingRuleRow): RoutingRuleRow {
    compileCondition(row.celExpression, "cel_expression");
    this.checkScope(row.scope, row.scopeId);
    row.targets.forEach((target, index) => this.checkTarget(target, `targets[${index}]`));
    row.fallbacks.forEach((fallback, index) => {
      const provider = fallback.slice(0, fallback.indexOf("/"));
      if (!fallback.includes("/") || !this.refs.providers.get(provider)) throw badRequest(`fallback '${fallback}' must be provider/model with a configured provider`, `fallbacks[${index}]`);
    });
    return row;
  }

  private checkScope(scope: RoutingScope, scopeId: string | null) {
    if (scope === "global") return;
    if (!scopeId) throw badRequest(`scope '${scope}' needs a scope_id`, "scope_id");
    const { organization, virtualKeys } = this.refs;
    const exists = scope === "team" ? organization.teams.get(scopeId) : scope === "customer" ? organization.customers.get(scopeId) : virtualKeys.keys.get(scopeId);
    if (!exists) throw badRequest(`${scope.replace("_", " ")} '${scopeId}' does not exist`, "scope_id");
  }

  private checkTarget(target: RoutingTarget, param: string) {
    if (!target.provider) return;
    const provider = this.refs.providers.get(target.provider);
    if (!provider) throw badRequest(`provider '${target.provider}' is not configured`, `${param}.provider`);
    if (target.key_id && !provider.keys.some((key) => key.id === target.key_id)) throw badRequest(`provider '${target.provider}' has no key '${target.key_id}'`, `${param}.key_id`);
  }

  private remember(row: RoutingRuleRow): RoutingRuleRow {
    this.rules.set(row);
    this.reindex();
    return row;
  }

  private reindex() {
    const byScope = new Map<string, ActiveRule[]>();
    for (const row of this.rules.all()) {
      if (!row.enabled) continue;
      const key = scopeKey(row.scope, row.scopeId);
      byScope.set(key, [...(byScope.get(key) ?? []), { row, matches: this.compiledOrNever(row) }]);
    }
    for (const rules of byScope.values()) rules.sort((a, b) => a.row.priority - b.row.priority);
    this.byScope = byScope;
    this.readsComplexity = [...byScope.values()].some((rules) => rules.some(({ row }) => COMPLEXITY_VARIABLE.test(row.celExpression)));
  }

  /** A stored expression that no longer compiles (after a library upgrade) never matches. */
  private compiledOrNever(row: RoutingRuleRow): Condition {
    try {
      return compileCondition(row.celExpression, "cel_expression");
    } catch (error) {
      console.error(`routing rule '${row.name}' is skipped: ${(error as Error).message}`);
      return () => false;
    }
  }
}
