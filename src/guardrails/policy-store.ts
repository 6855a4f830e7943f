import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { type GuardrailPolicyRow, guardrailPolicies } from "../db/schema";
import { badRequest } from "../http/errors";
import type { RequestContext } from "../inference/hooks";
import { RowCache } from "../governance/stores/row-cache";
import { type CheckDeps, type CompiledCheck, compileCheck } from "./checks";
import type { AppliedChecks, MatchCheck, VerdictCheck } from "./request-run";
import type { GuardrailPolicyInput, GuardrailPolicyUpdate } from "./schemas";
import type { GuardrailScope } from "../db/schema/types";

interface CompiledPolicy {
  row: GuardrailPolicyRow;
  checks: CompiledCheck[];
}

const scopeKey = (scope: GuardrailScope, scopeId: string | null) => `${scope}:${scopeId ?? ""}`;

export function guardrailView(row: GuardrailPolicyRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    scope: row.scope,
    scope_id: row.scopeId,
    restore_redacted: row.restoreRedacted,
    checks: row.checks,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Guardrail policies, compiled and indexed by the scope they are attached to. */
export class GuardrailPolicyStore {
  readonly policies = new RowCache<GuardrailPolicyRow>("guardrail");
  private byScope = new Map<string, CompiledPolicy[]>();
  /** The applied checks of a set of policies, kept while the policies do not change. */
  private appliedCache = new Map<string, AppliedChecks>();

  constructor(
    private readonly db: Database,
    private readonly deps: CheckDeps,
    /** Whether the virtual key, team, customer or routing rule a policy is attached to exists. */
    private readonly scopeExists: (scope: Exclude<GuardrailScope, "global">, id: string) => boolean,
  ) {}

  async load(): Promise<void> {
    await this.policies.reload(() => this.db.select().from(guardrailPolicies));
    this.reindex();
  }

  async create(input: GuardrailPolicyInput): Promise<GuardrailPolicyRow> {
    const now = new Date();
    const row: GuardrailPolicyRow = { id: crypto.randomUUID(), createdAt: now, updatedAt: now, ...this.fieldsOf(input) };
    this.compile(row);
    await this.db.insert(guardrailPolicies).values(row);
    return this.remember(row);
  }

  async update(id: string, input: GuardrailPolicyUpdate): Promise<GuardrailPolicyRow> {
    const current = this.policies.require(id);
    const merged = { ...guardrailView(current), scope_id: current.scopeId ?? undefined, ...input };
    const row: GuardrailPolicyRow = { ...current, ...this.fieldsOf(merged), updatedAt: new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1)) };
    this.compile(row);
    await this.db.update(guardrailPolicies).set(row).where(eq(guardrailPolicies.id, id));
    return this.remember(row);
  }

  async remove(id: string): Promise<void> {
    this.policies.require(id);
    await this.db.delete(guardrailPolicies).where(eq(guardrailPolicies.id, id));
    this.policies.delete(id);
    this.reindex();
  }

  /** The checks of the enabled policies attached globally or to the request's key, team, customer or routing rule; undefined when none. */
  appliedTo(context: RequestContext): AppliedChecks | undefined {
    // No policy at all (the usual case): nothing is looked up or built for the request.
    if (this.byScope.size === 0) return undefined;
    const caller = context.caller;
    const keys = [
      scopeKey("global", null),
      caller && scopeKey("virtual_key", caller.virtualKeyId),
      caller?.teamId && scopeKey("team", caller.teamId),
      caller?.customerId && scopeKey("customer", caller.customerId),
      context.routingRule && scopeKey("routing_rule", context.routingRule.id),
    ].filter((key): key is string => typeof key === "string" && this.byScope.has(key));
    if (keys.length === 0) return undefined;
    const cacheKey = keys.join("|");
    let applied = this.appliedCache.get(cacheKey);
    if (!applied) {
      applied = appliedChecks(keys.flatMap((key) => this.byScope.get(key)!));
      this.appliedCache.set(cacheKey, applied);
    }
    return applied;
  }

  private fieldsOf(input: GuardrailPolicyInput) {
    const scope = input.scope ?? "global";
    if (scope !== "global" && !input.scope_id) throw badRequest(`scope_id is required for scope '${scope}'`, "scope_id");
    if (scope !== "global" && !this.scopeExists(scope, input.scope_id!)) throw badRequest(`${scope.replace("_", " ")} '${input.scope_id}' does not exist`, "scope_id");
    return {
      name: input.name,
      description: input.description ?? "",
      enabled: input.enabled ?? true,
      scope,
      scopeId: scope === "global" ? null : input.scope_id!,
      restoreRedacted: input.restore_redacted ?? false,
      checks: input.checks,
    };
  }

  /** Throws a 400 naming the first check that does not compile. */
  private compile(row: GuardrailPolicyRow): CompiledPolicy {
    return { row, checks: row.checks.map((check, index) => compileCheck(row.name, check, `checks[${index}]`, this.deps)) };
  }

  private remember(row: GuardrailPolicyRow): GuardrailPolicyRow {
    this.policies.set(row);
    this.reindex();
    return row;
  }

  private reindex(): void {
    const byScope = new Map<string, CompiledPolicy[]>();
    for (const row of this.policies.all()) {
      if (!row.enabled) continue;
      const key = scopeKey(row.scope, row.scopeId);
      byScope.set(key, [...(byScope.get(key) ?? []), this.compileStored(row)]);
    }
    this.byScope = byScope;
    this.appliedCache = new Map();
  }

  /** A stored policy another version wrote may no longer compile: it is left out, not fatal. */
  private compileStored(row: GuardrailPolicyRow): CompiledPolicy {
    try {
      return this.compile(row);
    } catch (error) {
      console.error(`guardrail '${row.name}' (${row.id}) does not compile and is skipped`, error);
      return { row, checks: [] };
    }
  }
}

function appliedChecks(policies: readonly CompiledPolicy[]): AppliedChecks {
  const applied: AppliedChecks = { restoreRedacted: policies.some((policy) => policy.row.restoreRedacted), matches: { input: [], output: [] }, verdicts: { input: [], output: [] } };
  for (const check of policies.flatMap((policy) => policy.checks)) {
    for (const stage of ["input", "output"] as const) {
      if (!check[stage]) continue;
      if (check.kind === "match") applied.matches[stage].push(check as MatchCheck);
      else applied.verdicts[stage].push(check as VerdictCheck);
    }
  }
  return applied;
}
