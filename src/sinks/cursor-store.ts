import { and, eq, sql } from "drizzle-orm";
import type { Write } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { actorSnapshots, logSinkCursors, requestLogs } from "../db/schema";

export const SINK_ACTOR_KIND = "log-sink";

/** Who is asking: this node's id (the owner of record of the sinks it runs), and the time. */
export interface Holder {
  owner: string;
  now: number;
}

/** A batch the sink accepted: the cursor moves from `fromSeq` to `toSeq`. */
export interface Advance {
  fromSeq: number;
  toSeq: number;
  /** Rows sent (those the filter passed over are not counted). */
  delivered: number;
  lastRowAt: Date;
}

/**
 * True while `holder` is the owner of record of the sink's actor: only that node reads, sends and
 * advances. Ownership, not the lease's time: a lease that ran out still holds until another node
 * claims it (which makes that node the owner), and a node whose renewal ran late must not take
 * its own accepted batch for someone else's.
 */
const leaseHeld = (name: string, { owner }: Holder) =>
  sql`EXISTS (SELECT 1 FROM ${actorSnapshots} WHERE ${actorSnapshots.kind} = ${SINK_ACTOR_KIND} AND ${actorSnapshots.id} = ${name} AND ${actorSnapshots.owner} = ${owner})`;

/** The sinks' cursors in log_sink_cursors: created with the sink's actor, moved only by the node holding its lease. */
export class CursorStore {
  constructor(private readonly db: Database) {}

  /** The cursor of a sink seen for the first time, written with its actor's first snapshot; nothing when it exists (a sink configured again resumes). */
  create(name: string, startFrom: "new_rows" | "stored_rows", now: Date): Write {
    const afterSeq = startFrom === "stored_rows" ? sql`0` : sql`(SELECT coalesce(max(${requestLogs.seq}), 0) FROM ${requestLogs})`;
    return this.db.insert(logSinkCursors).values({ name, afterSeq, createdAt: now }).onConflictDoNothing();
  }

  /** Where the sink stands, if `holder` holds its lease; undefined otherwise (another node delivers it). */
  async heldCursor(name: string, holder: Holder): Promise<number | undefined> {
    const row = await this.db
      .select({ afterSeq: logSinkCursors.afterSeq })
      .from(logSinkCursors)
      .where(and(eq(logSinkCursors.name, name), leaseHeld(name, holder)))
      .get();
    return row?.afterSeq;
  }

  /** Moves the cursor past an accepted batch, only from where it was read and while the lease holds: false when another node took over meanwhile. */
  async advance(name: string, holder: Holder, step: Advance): Promise<boolean> {
    const delivered = step.delivered > 0;
    const moved = await this.db
      .update(logSinkCursors)
      .set({
        afterSeq: step.toSeq,
        consecutiveFailures: 0,
        deliveredRows: sql`${logSinkCursors.deliveredRows} + ${step.delivered}`,
        ...(delivered ? { lastRowAt: step.lastRowAt, lastDeliveredAt: new Date(holder.now), deliveredBatches: sql`${logSinkCursors.deliveredBatches} + 1` } : {}),
      })
      .where(and(eq(logSinkCursors.name, name), eq(logSinkCursors.afterSeq, step.fromSeq), leaseHeld(name, holder)))
      .returning({ name: logSinkCursors.name });
    return moved.length > 0;
  }

  async recordFailure(name: string, error: string, at: Date): Promise<void> {
    await this.db
      .update(logSinkCursors)
      .set({ failedAttempts: sql`${logSinkCursors.failedAttempts} + 1`, consecutiveFailures: sql`${logSinkCursors.consecutiveFailures} + 1`, lastError: error, lastFailureAt: at })
      .where(eq(logSinkCursors.name, name));
  }
}
