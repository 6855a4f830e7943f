import { and, count, desc, eq, gte, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type AuditEventRow, auditEvents } from "../../db/schema";
import { notFound } from "../../http/errors";
import { containsText } from "../../db/contains-text";
import { constantTimeEqual } from "../tokens";
import type { AuditListQuery } from "./schemas";
import { signAuditEvent } from "./signing";
import { parseTimestamp } from "../../http/timestamps";

export type AuditOutcome = AuditEventRow["outcome"];

export interface AuditEventInput {
  initiator: { type: string; id: string };
  action: string;
  target: { type: string; id: string };
  outcome: AuditOutcome;
  method: string;
  path: string;
  ip: string;
  /** Already redacted: the recorder removes secrets before anything reaches the log. */
  summary: Record<string, unknown>;
}

export interface AuditEventView extends Omit<AuditEventInput, "summary"> {
  id: string;
  timestamp: string;
  summary: unknown;
  signature: string;
}

const DEFAULT_PAGE = 50;
/** Insertion order breaks ties between events of the same millisecond. */
const newestFirst = [desc(auditEvents.occurredAt), desc(sql`rowid`)];

/** The signed, append-only audit trail (enterprise). */
export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly secret: string,
  ) {}

  async append(input: AuditEventInput): Promise<void> {
    const unsigned = {
      id: crypto.randomUUID(),
      occurredAt: new Date(),
      initiatorType: input.initiator.type,
      initiatorId: input.initiator.id,
      action: input.action,
      targetType: input.target.type,
      targetId: input.target.id,
      outcome: input.outcome,
      method: input.method,
      path: input.path,
      ip: input.ip,
      summary: JSON.stringify(input.summary),
    };
    await this.db.insert(auditEvents).values({ ...unsigned, signature: signAuditEvent(this.secret, unsigned) });
  }

  async list(query: AuditListQuery) {
    const where = and(...filtersOf(query));
    const limit = query.limit ?? DEFAULT_PAGE;
    const offset = query.offset ?? 0;
    const rows = await this.db.select().from(auditEvents).where(where).orderBy(...newestFirst).limit(limit).offset(offset);
    const [total] = await this.db.select({ value: count() }).from(auditEvents).where(where);
    return { audit_logs: rows.map(view), count: rows.length, total_count: total?.value ?? 0, limit, offset };
  }

  async require(id: string): Promise<AuditEventView> {
    return view(await this.requireRow(id));
  }

  /** Spec 4.6: recompute the signature and compare it with the stored one in constant time. */
  async verify(id: string): Promise<{ valid: boolean; computed: string; stored: string }> {
    const { signature: stored, ...unsigned } = await this.requireRow(id);
    const computed = signAuditEvent(this.secret, unsigned);
    return { valid: constantTimeEqual(computed, stored), computed, stored };
  }

  private async requireRow(id: string): Promise<AuditEventRow> {
    const row = await this.db.select().from(auditEvents).where(eq(auditEvents.id, id)).get();
    if (!row) throw notFound(`audit log event '${id}' does not exist`, "caller_audit_event_not_found");
    return row;
  }
}

function filtersOf(query: AuditListQuery): SQL[] {
  const filters: SQL[] = [];
  if (query.action) filters.push(eq(auditEvents.action, query.action));
  if (query.outcome) filters.push(eq(auditEvents.outcome, query.outcome));
  if (query.initiator_type) filters.push(eq(auditEvents.initiatorType, query.initiator_type));
  if (query.initiator) filters.push(eq(auditEvents.initiatorId, query.initiator));
  if (query.target_type) filters.push(eq(auditEvents.targetType, query.target_type));
  if (query.target) filters.push(eq(auditEvents.targetId, query.target));
  if (query.start_time) filters.push(gte(auditEvents.occurredAt, parseTimestamp(query.start_time)));
  if (query.end_time) filters.push(lte(auditEvents.occurredAt, parseTimestamp(query.end_time)));
  if (query.search) {
    const text = query.search;
    filters.push(or(...[auditEvents.action, auditEvents.path, auditEvents.initiatorId, auditEvents.targetId, auditEvents.summary].map((column) => containsText(column, text)))!);
  }
  return filters;
}

function view(row: AuditEventRow): AuditEventView {
  return {
    id: row.id,
    timestamp: row.occurredAt.toISOString(),
    initiator: { type: row.initiatorType, id: row.initiatorId },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    outcome: row.outcome,
    method: row.method,
    path: row.path,
    ip: row.ip,
    summary: parseSummary(row.summary),
    signature: row.signature,
  };
}

/** A tampered summary may no longer be JSON; show it as text rather than failing the listing. */
function parseSummary(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
