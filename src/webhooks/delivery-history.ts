import { and, asc, count, desc, eq, gte, inArray, isNull, lte, max, or, type SQL, sql } from "drizzle-orm";
import type { WebhookDeliveryContext } from "../../actors/webhook-delivery";
import type { Write } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { type DeliveryStatus, type WebhookDeliveryAttemptRow, type WebhookDeliveryRow, webhookDeliveries, webhookDeliveryAttempts } from "../db/schema";
import type { DeliveryHistoryQuery } from "./schemas";
import { parseTimestamp } from "../http/timestamps";

export type NewDelivery = typeof webhookDeliveries.$inferInsert;
export type NewAttempt = typeof webhookDeliveryAttempts.$inferInsert;

const FINAL: ReadonlySet<DeliveryStatus> = new Set(["delivered", "failed", "exhausted", "skipped"]);
/** What a recover re-sends: messages whose last delivery did not arrive. */
const NOT_ARRIVED: ReadonlySet<DeliveryStatus> = new Set(["failed", "exhausted", "skipped"]);
const IN_FLIGHT: DeliveryStatus[] = ["queued", "attempting", "waiting_retry"];

const listOf = (value: string | undefined) => value?.split(",").filter(Boolean);

function statusClassCondition(classes: string[]): SQL | undefined {
  const code = webhookDeliveries.lastStatusCode;
  return or(...classes.map((name) => (name === "none" ? isNull(code) : sql`${code} / 100 = ${Number(name[0])}`)));
}

function filters(query: DeliveryHistoryQuery): SQL | undefined {
  const events = listOf(query.event);
  const outcomes = listOf(query.outcome) as DeliveryStatus[] | undefined;
  const classes = listOf(query.status_class);
  return and(
    query.endpoint_id ? eq(webhookDeliveries.endpointId, query.endpoint_id) : undefined,
    query.job_id ? eq(webhookDeliveries.jobId, query.job_id) : undefined,
    events ? inArray(webhookDeliveries.event, events) : undefined,
    outcomes ? inArray(webhookDeliveries.status, outcomes) : undefined,
    classes ? statusClassCondition(classes) : undefined,
    query.start_time ? gte(webhookDeliveries.createdAt, parseTimestamp(query.start_time)) : undefined,
    query.end_time ? lte(webhookDeliveries.createdAt, parseTimestamp(query.end_time)) : undefined,
  );
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

function attemptView(attempt: WebhookDeliveryAttemptRow) {
  return {
    attempt: attempt.attempt,
    started_at: attempt.startedAt.toISOString(),
    latency_ms: attempt.latencyMs,
    status_code: attempt.statusCode,
    outcome: attempt.outcome,
    error: attempt.error,
    response_excerpt: attempt.responseExcerpt,
  };
}

export function deliveryView(delivery: WebhookDeliveryRow, attempts: WebhookDeliveryAttemptRow[]) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    endpoint_id: delivery.endpointId,
    event: delivery.event,
    job_id: delivery.jobId,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    last_status_code: delivery.lastStatusCode,
    next_attempt_at: iso(delivery.nextAttemptAt),
    redelivery_of: delivery.redeliveryOf,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
    completed_at: iso(delivery.completedAt),
    attempts: attempts.map(attemptView),
  };
}

export type DeliveryView = ReturnType<typeof deliveryView>;

/** Delivery records and their attempts: what happened to each message, for the history endpoints. */
export class DeliveryHistory {
  constructor(private readonly db: Database) {}

  /**
   * The messages to `endpointId` first sent at or after `since` whose latest delivery failed or
   * was skipped, oldest first, each as that latest delivery (its id, webhook-id and payload).
   */
  async notArrivedSince(endpointId: string, since: Date): Promise<WebhookDeliveryRow[]> {
    const rows = await this.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), gte(webhookDeliveries.createdAt, since)))
      .orderBy(asc(webhookDeliveries.createdAt), asc(sql`rowid`));
    const latest = new Map<string, WebhookDeliveryRow>();
    for (const row of rows) latest.set(row.webhookId, row);
    const firstSent = new Map<string, number>();
    for (const [index, row] of rows.entries()) if (!firstSent.has(row.webhookId)) firstSent.set(row.webhookId, index);
    return [...latest.values()].filter((row) => NOT_ARRIVED.has(row.status)).sort((a, b) => firstSent.get(a.webhookId)! - firstSent.get(b.webhookId)!);
  }

  insert(delivery: NewDelivery): Write {
    return this.db.insert(webhookDeliveries).values(delivery);
  }

  async get(id: string): Promise<WebhookDeliveryRow | undefined> {
    return this.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
  }

  async isInFlight(webhookId: string): Promise<boolean> {
    const row = await this.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, webhookId), inArray(webhookDeliveries.status, IN_FLIGHT)))
      .get();
    return row !== undefined;
  }

  /** The row that mirrors a delivery actor's state, written with its snapshot. */
  mirror(id: string, status: DeliveryStatus, context: WebhookDeliveryContext, at: Date): Write {
    return this.db
      .update(webhookDeliveries)
      .set({
        status,
        attemptCount: context.attempts,
        lastStatusCode: context.lastStatusCode ?? null,
        nextAttemptAt: status === "waiting_retry" && context.nextAttemptAt !== undefined ? new Date(context.nextAttemptAt) : null,
        updatedAt: at,
        completedAt: FINAL.has(status) ? at : null,
      })
      .where(eq(webhookDeliveries.id, id));
  }

  /** Records an attempt, or what became of one recorded before its request left (same id). */
  recordAttempt(attempt: NewAttempt): Write {
    const { latencyMs, statusCode, outcome, error, responseExcerpt } = attempt;
    return this.db.insert(webhookDeliveryAttempts).values(attempt).onConflictDoUpdate({ target: webhookDeliveryAttempts.id, set: { latencyMs, statusCode, outcome, error, responseExcerpt } });
  }

  /** The number of the delivery's last recorded attempt; 0 before the first. */
  async lastAttemptNumber(deliveryId: string): Promise<number> {
    const [row] = await this.db.select({ last: max(webhookDeliveryAttempts.attempt) }).from(webhookDeliveryAttempts).where(eq(webhookDeliveryAttempts.deliveryId, deliveryId));
    return row?.last ?? 0;
  }

  async view(id: string): Promise<DeliveryView | undefined> {
    const delivery = await this.get(id);
    return delivery && deliveryView(delivery, await this.attemptsOf([id]).then((rows) => rows.get(id) ?? []));
  }

  async list(query: DeliveryHistoryQuery) {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const where = filters(query);
    const rows = await this.db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(limit).offset(offset);
    const [total] = await this.db.select({ total: count() }).from(webhookDeliveries).where(where);
    const attempts = await this.attemptsOf(rows.map((row) => row.id));
    const deliveries = rows.map((row) => deliveryView(row, attempts.get(row.id) ?? []));
    return { deliveries, count: deliveries.length, total_count: total?.total ?? 0, limit, offset };
  }

  private async attemptsOf(ids: string[]): Promise<Map<string, WebhookDeliveryAttemptRow[]>> {
    const byDelivery = new Map<string, WebhookDeliveryAttemptRow[]>();
    if (ids.length === 0) return byDelivery;
    const rows = await this.db.select().from(webhookDeliveryAttempts).where(inArray(webhookDeliveryAttempts.deliveryId, ids)).orderBy(asc(webhookDeliveryAttempts.attempt));
    for (const row of rows) byDelivery.set(row.deliveryId, [...(byDelivery.get(row.deliveryId) ?? []), row]);
    return byDelivery;
  }
}
