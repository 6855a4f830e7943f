import { and, asc, count, eq, gt } from "drizzle-orm";
import type { LogSinkContext } from "../../actors/log-sink";
import type { Database } from "../db/client";
import { actorSnapshots, logSinkCursors, requestLogs } from "../db/schema";
import type { ReadDatabase } from "../logs/worker-reader";
import type { ConfiguredSink } from "./configured-sinks";
import { SINK_ACTOR_KIND } from "./cursor-store";
import type { StoredSink } from "./sink-store";

/** Rows counted at most for a sink's lag: past it the figure says "at least" (a count walks every row). */
export const LAG_COUNT_CAP = 1_000_000;

const iso = (at: Date | null | undefined) => (at ? at.toISOString() : null);

/** Rows stored after the cursor (capped), and how long the oldest of them has waited. */
async function lagOf(read: ReadDatabase, afterSeq: number, now: number) {
  const pending = read.select({ seq: requestLogs.seq }).from(requestLogs).where(gt(requestLogs.seq, afterSeq)).limit(LAG_COUNT_CAP).as("pending");
  const [[counted], [oldest]] = await Promise.all([
    read.select({ rows: count() }).from(pending),
    read.select({ timestamp: requestLogs.timestamp }).from(requestLogs).where(gt(requestLogs.seq, afterSeq)).orderBy(asc(requestLogs.seq)).limit(1),
  ]);
  return { rows: counted?.rows ?? 0, seconds: oldest ? Math.max(0, Math.round((now - oldest.timestamp.getTime()) / 1000)) : 0 };
}

/** One sink as GET /api/log-sinks shows it: where it stands (the database's view, the same from every node). */
export async function sinkStatus(db: Database, read: ReadDatabase, sink: ConfiguredSink, now: number) {
  const [cursor, actor] = await Promise.all([
    db.select().from(logSinkCursors).where(eq(logSinkCursors.name, sink.name)).get(),
    db.select({ state: actorSnapshots.state, snapshot: actorSnapshots.snapshot, owner: actorSnapshots.owner }).from(actorSnapshots).where(and(eq(actorSnapshots.kind, SINK_ACTOR_KIND), eq(actorSnapshots.id, sink.name))).get(),
  ]);
  const lag = cursor ? await lagOf(read, cursor.afterSeq, now) : { rows: 0, seconds: 0 };
  const context = (actor?.snapshot as { context?: Partial<LogSinkContext> } | undefined)?.context;
  return {
    name: sink.name,
    source: sink.source,
    type: sink.type,
    destination: sink.destination,
    filter: sink.config.filter ?? null,
    fields: sink.config.fields ?? null,
    include_content: sink.includeContent,
    allow_private_network: (sink.config as StoredSink).allow_private_network === true,
    state: actor ? (JSON.parse(actor.state) as string) : "starting",
    node: actor?.owner ?? null,
    next_attempt_at: context?.nextAttemptAt ? new Date(context.nextAttemptAt).toISOString() : null,
    last_delivered_at: iso(cursor?.lastDeliveredAt),
    last_row_at: iso(cursor?.lastRowAt),
    delivered_rows: cursor?.deliveredRows ?? 0,
    delivered_batches: cursor?.deliveredBatches ?? 0,
    lag_rows: lag.rows,
    lag_seconds: lag.seconds,
    failed_attempts: cursor?.failedAttempts ?? 0,
    consecutive_failures: cursor?.consecutiveFailures ?? 0,
    last_error: cursor?.lastError ?? null,
    last_failure_at: iso(cursor?.lastFailureAt),
  };
}

export type SinkStatus = Awaited<ReturnType<typeof sinkStatus>>;
