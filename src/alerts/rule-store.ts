import { desc, eq, inArray } from "drizzle-orm";
import type { Write } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { duplicatedColumns } from "../db/duplicate-value";
import { type AlertRuleRow, alertChannels, alertHistory, alertRules } from "../db/schema";
import { badRequest, conflict, notFound } from "../http/errors";
import { compileCondition } from "./condition";
import type { RuleCreate, RuleUpdate } from "./schemas";

export type AlertRule = AlertRuleRow;

/** What a rule's lifecycle mirrors into its row, in the same commit as its snapshot. */
export type RuleStateColumns = Pick<AlertRule, "state" | "stateSince" | "lastEvaluatedAt" | "lastFigures" | "silencedUntil" | "acknowledgedBy" | "acknowledgedAt">;

export interface HistoryRow {
  ruleId: string;
  at: Date;
  fromState: string | null;
  toState: string;
  figures: Record<string, number> | null;
  note: string | null;
}

const DEFAULTS = { window: "5m", interval_seconds: 60, for_seconds: 0, cooldown_seconds: 0, severity: "warning", scope: "global", scope_id: null, channel_ids: [] as string[], enabled: true } as const;

/** Alert rules in the database; read at each evaluation and by the API (never on the request path). */
export class AlertRuleStore {
  constructor(private readonly db: Database) {}

  list(): Promise<AlertRule[]> {
    return this.db.select().from(alertRules).orderBy(alertRules.createdAt);
  }

  get(id: string): Promise<AlertRule | undefined> {
    return this.db.select().from(alertRules).where(eq(alertRules.id, id)).get();
  }

  async require(id: string): Promise<AlertRule> {
    const rule = await this.get(id);
    if (!rule) throw notFound(`alert rule '${id}' not found`);
    return rule;
  }

  async create(input: RuleCreate, builtin: string | null = null): Promise<AlertRule> {
    const fields = await this.checked({ ...DEFAULTS, ...input });
    const now = new Date();
    const row: AlertRule = { id: crypto.randomUUID(), ...fields, builtin, state: "ok", stateSince: now, lastEvaluatedAt: null, lastFigures: null, silencedUntil: null, acknowledgedBy: null, acknowledgedAt: null, createdAt: now, updatedAt: now };
    await this.db.insert(alertRules).values(row).catch((error) => rethrow(error, input.name));
    return row;
  }

  async update(id: string, input: RuleUpdate): Promise<AlertRule> {
    const current = await this.require(id);
    const fields = await this.checked({ ...ruleFieldsOf(current), ...input });
    const updatedAt = new Date();
    await this.db.update(alertRules).set({ ...fields, updatedAt }).where(eq(alertRules.id, id)).catch((error) => rethrow(error, fields.name));
    return { ...current, ...fields, updatedAt };
  }

  async remove(id: string): Promise<void> {
    await this.require(id);
    await this.db.batch([this.db.delete(alertHistory).where(eq(alertHistory.ruleId, id)), this.db.delete(alertRules).where(eq(alertRules.id, id))]);
  }

  mirrorState(id: string, columns: RuleStateColumns): Write {
    return this.db.update(alertRules).set(columns).where(eq(alertRules.id, id));
  }

  recordHistory(row: HistoryRow): Write {
    return this.db.insert(alertHistory).values(row);
  }

  history(ruleId: string, limit = 100) {
    return this.db.select().from(alertHistory).where(eq(alertHistory.ruleId, ruleId)).orderBy(desc(alertHistory.seq)).limit(limit);
  }

  /** The columns of a write, once the condition compiles, the scope names what it needs and every channel exists. */
  private async checked(fields: Required<Omit<RuleCreate, "scope_id">> & { scope_id: string | null | undefined }) {
    await compileCondition(fields.condition);
    if (fields.scope !== "global" && !fields.scope_id) throw badRequest(`scope_id is required for a ${fields.scope} scope`, "scope_id");
    const channelIds = [...new Set(fields.channel_ids)];
    const known = channelIds.length === 0 ? [] : await this.db.select({ id: alertChannels.id }).from(alertChannels).where(inArray(alertChannels.id, channelIds));
    const unknown = channelIds.find((channelId) => !known.some((row) => row.id === channelId));
    if (unknown !== undefined) throw badRequest(`channel_ids: no alert channel '${unknown}'`, "channel_ids");
    return {
      name: fields.name,
      condition: fields.condition,
      window: fields.window,
      intervalSeconds: fields.interval_seconds,
      forSeconds: fields.for_seconds,
      cooldownSeconds: fields.cooldown_seconds,
      severity: fields.severity,
      scope: fields.scope,
      scopeId: fields.scope === "global" ? null : (fields.scope_id ?? null),
      channelIds,
      enabled: fields.enabled,
    };
  }
}

/** A rule's settings as the API names them. */
export function ruleFieldsOf(rule: AlertRule): Required<Omit<RuleCreate, "scope_id">> & { scope_id: string | null } {
  return {
    name: rule.name,
    condition: rule.condition,
    window: rule.window,
    interval_seconds: rule.intervalSeconds,
    for_seconds: rule.forSeconds,
    cooldown_seconds: rule.cooldownSeconds,
    severity: rule.severity,
    scope: rule.scope,
    scope_id: rule.scopeId,
    channel_ids: rule.channelIds,
    enabled: rule.enabled,
  };
}

function rethrow(error: unknown, name: string): never {
  if (duplicatedColumns(error)) throw conflict(`an alert rule named '${name}' already exists`, "name");
  throw error;
}
