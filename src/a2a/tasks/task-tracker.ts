import { and, count, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { createActor, type Snapshot, type StateValue } from "xstate";
import type { A2ATaskStatusSeen } from "../../../actors/a2a-task";
import type { ActorSnapshotStore } from "../../../actors/runtime/snapshot-store";
import type { Database } from "../../db/client";
import { a2aTasks, type A2ATaskRow } from "../../db/schema";
import type { TaskSighting } from "./task-sighting";

const ACTOR_KIND = "a2a-task";

/** What the gateway knows of one task. */
export interface TaskRecord {
  agent: string;
  taskId: string;
  contextId?: string;
  state: string;
  live: boolean;
  virtualKeyId?: string;
  /** The status as the upstream last sent it. */
  status: Record<string, unknown>;
  transitions: Array<{ state: string; at: string }>;
  createdAt: Date;
  updatedAt: Date;
}

export const taskRecordOf = (row: A2ATaskRow): TaskRecord => ({
  agent: row.agentName,
  taskId: row.taskId,
  contextId: row.contextId ?? undefined,
  state: row.state,
  live: row.live,
  virtualKeyId: row.virtualKeyId ?? undefined,
  status: row.status,
  transitions: row.transitions,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** ListTasks' filters, as the tracker can apply them. */
export interface OwnedTaskFilter {
  contextId?: string;
  state?: string;
  /** An ISO 8601 time: tasks whose status timestamp is this or later. */
  statusSince?: string;
}

/** Agent names cannot hold a `/`, so the pair stays unambiguous. */
const actorIdOf = (agent: string, taskId: string) => `${agent}/${taskId}`;

/**
 * Each task seen through the gateway is an `a2a-task` actor whose snapshot lives in the shared
 * actor snapshot store while the task is live. A sighting rehydrates the actor, moves it, and
 * writes its snapshot and the task's history row in one batch. Actors are not kept in memory
 * between sightings (they have no timers to run), so an abandoned task costs nothing and
 * every node sharing the database sees the same state.
 */
export class TaskTracker {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly snapshots: ActorSnapshotStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Sightings of one task are applied in the order they arrive. */
  observe(agent: string, sighting: TaskSighting, virtualKeyId?: string): Promise<void> {
    const key = actorIdOf(agent, sighting.taskId);
    const next = (this.queues.get(key) ?? Promise.resolve()).then(() => this.apply(agent, sighting, virtualKeyId));
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  async find(agent: string, taskId: string): Promise<TaskRecord | undefined> {
    const row = await this.db.select().from(a2aTasks).where(and(eq(a2aTasks.agentName, agent), eq(a2aTasks.taskId, taskId))).get();
    return row && taskRecordOf(row);
  }

  /** Of these tasks of an agent, those the gateway saw started by this virtual key (by no key when it is undefined). */
  async ownedBy(agent: string, taskIds: readonly string[], virtualKeyId: string | undefined): Promise<Set<string>> {
    if (taskIds.length === 0) return new Set();
    const owner = virtualKeyId === undefined ? isNull(a2aTasks.virtualKeyId) : eq(a2aTasks.virtualKeyId, virtualKeyId);
    const rows = await this.db
      .select({ taskId: a2aTasks.taskId })
      .from(a2aTasks)
      .where(and(eq(a2aTasks.agentName, agent), inArray(a2aTasks.taskId, [...taskIds]), owner))
      .all();
    return new Set(rows.map((row) => row.taskId));
  }

  /** How many tasks of an agent the gateway saw started by this virtual key (by no key when undefined) that match `filter`. */
  async countOwned(agent: string, virtualKeyId: string | undefined, filter: OwnedTaskFilter): Promise<number> {
    const conditions: SQL[] = [eq(a2aTasks.agentName, agent), virtualKeyId === undefined ? isNull(a2aTasks.virtualKeyId) : eq(a2aTasks.virtualKeyId, virtualKeyId)];
    if (filter.contextId) conditions.push(eq(a2aTasks.contextId, filter.contextId));
    if (filter.state) conditions.push(eq(a2aTasks.state, filter.state));
    if (filter.statusSince) conditions.push(sql`json_extract(${a2aTasks.status}, '$.timestamp') >= ${filter.statusSince}`);
    const row = await this.db.select({ total: count() }).from(a2aTasks).where(and(...conditions)).get();
    return row?.total ?? 0;
  }

  private async apply(agent: string, sighting: TaskSighting, virtualKeyId: string | undefined): Promise<void> {
    const id = actorIdOf(agent, sighting.taskId);
    const now = this.now();
    const seen: A2ATaskStatusSeen = { type: "status.seen", state: sighting.state, at: now.toISOString(), status: sighting.status, contextId: sighting.contextId };
    const stored = (await this.snapshots.load(ACTOR_KIND, id)) as (Snapshot<unknown> & { value: StateValue }) | undefined;
    // No live snapshot but a history row: the task finished, and a finished task never changes.
    if (!stored && (await this.find(agent, sighting.taskId))) return;
    // The input only matters for a new task: a restored snapshot already carries its context.
    const input = { agent, taskId: sighting.taskId, first: seen };
    const actor = createActor(this.snapshots.machines["a2a-task"], { ...(stored ? { input, snapshot: stored } : { input }), inspect: this.snapshots.inspect });
    const before = stored ? stored.value : null;
    actor.start();
    if (stored) actor.send(seen);
    const snapshot = actor.getSnapshot();
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const finished = snapshot.status === "done";
    const { contextId, status, transitions } = snapshot.context;
    const history = { state: String(snapshot.value), live: !finished, contextId: contextId ?? null, status, transitions, updatedAt: now };
    const moved = before === null || JSON.stringify(before) !== JSON.stringify(snapshot.value);
    const transition = { kind: ACTOR_KIND, id, from: before, event: stored ? seen.type : "xstate.init", to: snapshot.value, status: finished ? "done" : "active", at: now } as const;
    await this.snapshots.commit([
      ...(moved ? this.snapshots.transitions.record(transition) : []),
      finished ? this.snapshots.remove(ACTOR_KIND, id) : this.snapshots.saveUnleased(ACTOR_KIND, id, snapshot.value, persisted, now),
      this.db
        .insert(a2aTasks)
        .values({ agentName: agent, taskId: sighting.taskId, virtualKeyId: virtualKeyId ?? null, createdAt: now, ...history })
        .onConflictDoUpdate({ target: [a2aTasks.agentName, a2aTasks.taskId], set: history }),
    ]);
  }
}
