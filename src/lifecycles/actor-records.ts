import { and, asc, count, desc, eq, gt, inArray, like, lt, or, type SQL, sql } from "drizzle-orm";
import type { StateValue } from "xstate";
import { statePathOf } from "../../actors/runtime/transition-log";
import type { Database } from "../db/client";
import { type ActorInstanceRow, type ActorStatus, actorInstances, actorSnapshots, actorTransitions, type ActorTransitionRow } from "../db/schema";
import { notFound } from "../http/errors";
import { redactContext } from "./context-redaction";
import type { ActorListQuery } from "./schemas";

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export const transitionView = (row: ActorTransitionRow) => ({
  seq: row.seq,
  kind: row.kind,
  id: row.actorId,
  from: row.from ?? null,
  from_path: row.from == null ? null : statePathOf(row.from as StateValue),
  event: row.event,
  to: row.to,
  to_path: statePathOf(row.to as StateValue),
  at: row.at.toISOString(),
  node: row.node,
});

export type TransitionView = ReturnType<typeof transitionView>;

type ListedRow = ActorInstanceRow & { holder: string | null; leaseUntil: number | null };

const instanceView = (row: ListedRow) => ({
  kind: row.kind,
  id: row.id,
  state: row.state,
  state_path: row.statePath,
  status: row.status,
  /** The node holding the actor's lease while it runs; the node of its last transition once it ended. */
  node: row.holder ?? row.node,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  ended_at: iso(row.endedAt),
  next_timer_at: row.status === "active" ? iso(row.nextTimerAt) : null,
  lease_until: row.status === "active" && row.leaseUntil !== null ? new Date(row.leaseUntil).toISOString() : null,
});

/** `completed` matches `completed` and the states inside it (`completed.retained`). */
const inState = (state: string) => or(eq(actorInstances.statePath, state), like(actorInstances.statePath, `${state.replace(/[%_\\]/g, "\\$&")}.%`))!;

const holder = sql<string | null>`${actorSnapshots.owner}`;

/**
 * The lifecycle records: every actor's instance row, its transitions and, while it runs, its
 * snapshot (read for its context, redacted).
 */
export class ActorRecords {
  constructor(private readonly db: Database) {}

  async list(query: ActorListQuery) {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const conditions: SQL[] = [];
    if (query.kind) conditions.push(eq(actorInstances.kind, query.kind));
    if (query.state) conditions.push(inState(query.state));
    if (query.status) conditions.push(eq(actorInstances.status, query.status as ActorStatus));
    if (query.node) conditions.push(sql`coalesce(${actorSnapshots.owner}, ${actorInstances.node}) = ${query.node}`);
    const where = conditions.length ? and(...conditions) : undefined;
    const joined = and(eq(actorSnapshots.kind, actorInstances.kind), eq(actorSnapshots.id, actorInstances.id));
    const rows = await this.db
      .select({ instance: actorInstances, holder, leaseUntil: actorSnapshots.leaseUntil })
      .from(actorInstances)
      .leftJoin(actorSnapshots, joined)
      .where(where)
      .orderBy(desc(actorInstances.updatedAt), asc(actorInstances.kind), asc(actorInstances.id))
      .limit(limit)
      .offset(offset);
    const [total] = await this.db.select({ total: count() }).from(actorInstances).leftJoin(actorSnapshots, joined).where(where);
    const actors = rows.map((row) => instanceView({ ...row.instance, holder: row.holder, leaseUntil: row.leaseUntil }));
    return { actors, count: actors.length, total_count: total?.total ?? 0, limit, offset };
  }

  async counts() {
    const rows = await this.db
      .select({ kind: actorInstances.kind, state: actorInstances.statePath, status: actorInstances.status, count: count() })
      .from(actorInstances)
      .groupBy(actorInstances.kind, actorInstances.statePath, actorInstances.status)
      .orderBy(asc(actorInstances.kind), asc(actorInstances.statePath));
    return { counts: rows, total: rows.reduce((sum, row) => sum + row.count, 0) };
  }

  /** One actor: where it stands, its context while it runs (redacted), and its transitions in order. */
  async find(kind: string, id: string) {
    const [instance, snapshot, transitions] = await Promise.all([
      this.db
        .select()
        .from(actorInstances)
        .where(and(eq(actorInstances.kind, kind), eq(actorInstances.id, id)))
        .get(),
      this.db
        .select()
        .from(actorSnapshots)
        .where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.id, id)))
        .get(),
      this.db
        .select()
        .from(actorTransitions)
        .where(and(eq(actorTransitions.kind, kind), eq(actorTransitions.actorId, id)))
        .orderBy(asc(actorTransitions.seq)),
    ]);
    if (!instance && !snapshot) throw notFound(`no ${kind} actor has the id '${id}'`, "caller_actor_not_found");
    const persisted = snapshot?.snapshot as { value?: StateValue; context?: unknown } | undefined;
    const base: ListedRow = instance
      ? { ...instance, holder: snapshot?.owner ?? null, leaseUntil: snapshot?.leaseUntil ?? null }
      : {
          kind,
          id,
          state: persisted?.value ?? JSON.parse(snapshot!.state),
          statePath: statePathOf(persisted?.value ?? JSON.parse(snapshot!.state)),
          status: "active" as ActorStatus,
          node: snapshot!.owner ?? "",
          holder: snapshot!.owner,
          leaseUntil: snapshot!.leaseUntil,
          createdAt: snapshot!.updatedAt,
          updatedAt: snapshot!.updatedAt,
          endedAt: null,
          nextTimerAt: null,
        };
    return {
      ...instanceView(base),
      context: persisted?.context === undefined ? null : redactContext(kind, persisted.context),
      transitions: transitions.map(transitionView),
    };
  }

  /** Transitions recorded after `seq`, oldest first, at most `limit`. */
  transitionsAfter(seq: number, limit: number): Promise<ActorTransitionRow[]> {
    return this.db.select().from(actorTransitions).where(gt(actorTransitions.seq, seq)).orderBy(asc(actorTransitions.seq)).limit(limit);
  }

  async lastSeq(): Promise<number> {
    const [row] = await this.db.select({ seq: sql<number | null>`max(${actorTransitions.seq})` }).from(actorTransitions);
    return row?.seq ?? 0;
  }

  /** Deletes the instances that ended before `endedBefore`, with their transitions; answers how many. */
  async sweep(endedBefore: Date, batch = 500): Promise<number> {
    let swept = 0;
    for (;;) {
      const ended = await this.db
        .select({ kind: actorInstances.kind, id: actorInstances.id })
        .from(actorInstances)
        .where(lt(actorInstances.endedAt, endedBefore))
        .limit(batch);
      if (ended.length === 0) return swept;
      for (const kind of new Set(ended.map((row) => row.kind))) {
        const ids = ended.filter((row) => row.kind === kind).map((row) => row.id);
        await this.db.batch([
          this.db.delete(actorTransitions).where(and(eq(actorTransitions.kind, kind), inArray(actorTransitions.actorId, ids))),
          this.db.delete(actorInstances).where(and(eq(actorInstances.kind, kind), inArray(actorInstances.id, ids), lt(actorInstances.endedAt, endedBefore))),
        ]);
      }
      swept += ended.length;
      if (ended.length < batch) return swept;
    }
  }
}
