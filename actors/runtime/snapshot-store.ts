import { and, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../src/db/client";
import { type ActorSignal, actorSignals, actorSnapshots } from "../../src/db/schema";
import { WRITE_RETRY_DELAYS_MS } from "../../src/db/write-retries";
import type { InspectionEvent, Observer } from "xstate";
import { ACTOR_MACHINES, type ActorMachines } from "../machines";
import { GroupCommit } from "./group-commit";
import { type HistoryWrite, isHistoryWrite, TransitionLog } from "./transition-log";
import { defaultNodeId, NodePresence } from "./node-identity";

export type Write = BatchItem<"sqlite">;

/** What a commit takes: statements, and the history rows written after them in one statement per table. */
export type ActorWrite = Write | HistoryWrite;

/** Which node runs which actors when several share one database. */
export interface ActorLease {
  /** This node: GATEWAY_NODE_ID, or an id unique to this process (node-identity.ts). */
  owner: string;
  /** How long a claim holds without renewal; a node that died leaves its actors for this long. */
  durationMs: number;
  now: () => number;
}

export const DEFAULT_LEASE_MS = 30_000;

export interface ActorRuntimeOptions {
  /** The machines the actors run, by kind; the definitions in actors/ unless replaced (a test runs a changed one). */
  machines?: Partial<ActorMachines>;
  /** Whether transitions are recorded (read on each one); on by default. */
  recordTransitions?: () => boolean;
  /** Told of everything every actor does, in xstate's inspection protocol (Stately's inspector); nothing when unset. */
  inspect?: Observer<InspectionEvent>;
}

export const defaultLease = (env: Record<string, string | undefined>, databaseUrl: string, durationMs = DEFAULT_LEASE_MS): ActorLease => ({
  owner: defaultNodeId(env, databaseUrl),
  durationMs,
  now: Date.now,
});

/**
 * Persisted xstate snapshots in libSQL, keyed by actor kind and id, and the group commit every
 * actor write goes through (the rows that mirror an actor's state and its transitions included);
 * with them what every kind shares: the machines, the transition log, the inspector. Each row carries
 * the lease of the node running it: a node claims the rows nobody holds (a lease that ran out,
 * or its own), renews its leases while it runs, and hands them back when it stops.
 */
export class ActorSnapshotStore {
  private readonly writer: GroupCommit<ActorWrite>;
  /** The transition history and instance rows each actor writes along with its snapshot. */
  readonly transitions: TransitionLog;
  readonly inspect?: Observer<InspectionEvent>;
  readonly machines: ActorMachines;
  private readonly presence: NodePresence;
  private current: ActorLease;
  private readonly freedListeners = new Set<() => void>();

  constructor(
    private readonly db: Database,
    lease: ActorLease,
    options: ActorRuntimeOptions = {},
  ) {
    this.current = lease;
    this.presence = new NodePresence(db, lease.now, lease.durationMs, () => {
      for (const listener of this.freedListeners) listener();
    });
    this.transitions = new TransitionLog(db, () => this.lease.owner, options.recordTransitions);
    this.inspect = options.inspect;
    this.machines = { ...ACTOR_MACHINES, ...options.machines };
    this.writer = new GroupCommit<ActorWrite>(
      async (writes) => {
        // Only the transition log writes the history tables, so its writes may follow the others, in their own order.
        const [first, ...rest] = [...writes.filter((write): write is Write => !isHistoryWrite(write)), ...this.transitions.statements(writes.filter(isHistoryWrite))];
        if (first) await this.db.batch([first, ...rest]);
      },
      { retryDelaysMs: WRITE_RETRY_DELAYS_MS },
    );
  }

  get lease(): ActorLease {
    return this.current;
  }

  /**
   * Takes this node's id before any lease is claimed; a live node already running under it keeps
   * its leases, and this one runs under an id of its own.
   */
  async join(): Promise<void> {
    this.current = { ...this.current, owner: await this.presence.join(this.current.owner) };
  }

  /** Hands the node id back, once every actor has stopped and handed its lease back. */
  leave(): Promise<void> {
    return this.presence.leave();
  }

  /** Calls `listener` whenever leases this node may claim were freed early (their node found gone); answers how to stop. */
  onLeasesFreed(listener: () => void): () => void {
    this.freedListeners.add(listener);
    return () => this.freedListeners.delete(listener);
  }

  /** Commits the database did not take at first and that were tried again. */
  get retries(): number {
    return this.writer.retries;
  }

  /** Written only while this node holds the row (or nobody does): a node that lost its lease to another does not overwrite it. */
  save(kind: string, id: string, state: unknown, snapshot: unknown, at: Date): Write {
    return this.upsert(kind, id, { state: JSON.stringify(state), snapshot, updatedAt: at, ...this.held() }, this.claimable());
  }

  /** For snapshots no node keeps running (read, advanced by one event and written back by whichever node saw it): no lease, the last write wins. */
  saveUnleased(kind: string, id: string, state: unknown, snapshot: unknown, at: Date): Write {
    return this.upsert(kind, id, { state: JSON.stringify(state), snapshot, updatedAt: at });
  }

  remove(kind: string, id: string): Write {
    return this.db.delete(actorSnapshots).where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.id, id)));
  }

  /**
   * Applies writes in one transaction (shared with other writes queued meanwhile): a snapshot and
   * the rows that mirror it never disagree. With `retry`, a database out of reach delays them
   * (until it is back, or until `giveUpAfter` runs out) instead of failing them.
   */
  commit(writes: ActorWrite[], options: { retry?: boolean } = {}): Promise<void> {
    return this.writer.write(writes, options);
  }

  /** For a stopping node: writes the database still does not take `graceMs` from now are tried once more and fail. */
  giveUpAfter(graceMs: number): void {
    setTimeout(() => this.writer.giveUp(), graceMs).unref();
  }

  /** Resolves once every write queued so far has landed. */
  idle(): Promise<void> {
    return this.writer.idle();
  }

  /**
   * Claims this kind's rows that nobody holds, extending the lease on those this node already
   * holds (a claim is also the renewal), and answers every row this node now holds, in
   * creation order (the rowid survives upserts), so restored actors queue as they did before.
   */
  async claim(kind: string): Promise<Array<{ id: string; snapshot: unknown }>> {
    const [, held] = await this.db.batch([
      this.db.update(actorSnapshots).set(this.held()).where(and(eq(actorSnapshots.kind, kind), this.claimable())),
      this.db
        .select({ id: actorSnapshots.id, snapshot: actorSnapshots.snapshot })
        .from(actorSnapshots)
        .where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.owner, this.lease.owner)))
        .orderBy(sql`rowid`),
    ]);
    return held;
  }

  /** Hands this node's rows of `kind` back, for whichever node claims them next. */
  async release(kind: string): Promise<void> {
    await this.db.update(actorSnapshots).set({ owner: null, leaseUntil: null }).where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.owner, this.lease.owner)));
  }

  async load(kind: string, id: string): Promise<unknown | undefined> {
    const row = await this.db
      .select({ snapshot: actorSnapshots.snapshot })
      .from(actorSnapshots)
      .where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.id, id)))
      .get();
    return row?.snapshot;
  }

  /** Leaves `signal` for whichever node runs actor `id` of `kind`, now or once it claims it. */
  async postSignal(kind: string, id: string, signal: ActorSignal): Promise<void> {
    await this.db.insert(actorSignals).values({ kind, actorId: id, signal, createdAt: this.lease.now() });
  }

  /**
   * Takes (deletes and answers) the signals of `kind` for the actors `runsHere` names, in the
   * order they were posted; signals older than `maxAgeMs` that no node took are dropped.
   */
  async takeSignals(kind: string, runsHere: (id: string) => boolean, maxAgeMs: number): Promise<Array<{ id: string; signal: ActorSignal }>> {
    const rows = await this.db.select().from(actorSignals).where(eq(actorSignals.kind, kind)).orderBy(actorSignals.seq);
    if (rows.length === 0) return [];
    const staleBefore = this.lease.now() - maxAgeMs;
    const taken = rows.filter((row) => runsHere(row.actorId));
    const done = rows.filter((row) => runsHere(row.actorId) || row.createdAt < staleBefore).map((row) => row.seq);
    if (done.length > 0) await this.db.delete(actorSignals).where(inArray(actorSignals.seq, done));
    return taken.map((row) => ({ id: row.actorId, signal: row.signal }));
  }

  private upsert(kind: string, id: string, row: Omit<typeof actorSnapshots.$inferInsert, "kind" | "id">, setWhere?: SQL) {
    return this.db
      .insert(actorSnapshots)
      .values({ kind, id, ...row })
      .onConflictDoUpdate({ target: [actorSnapshots.kind, actorSnapshots.id], set: row, setWhere });
  }

  private held() {
    return { owner: this.lease.owner, leaseUntil: this.lease.now() + this.lease.durationMs };
  }

  private claimable() {
    return or(isNull(actorSnapshots.owner), eq(actorSnapshots.owner, this.lease.owner), lt(actorSnapshots.leaseUntil, this.lease.now()))!;
  }
}
