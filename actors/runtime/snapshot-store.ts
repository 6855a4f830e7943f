import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../src/db/client";
import { GroupCommit } from "./group-commit";
import { actorSnapshots } from "../../src/db/schema";

export type Write = BatchItem<"sqlite">;

/**
 * Persisted xstate snapshots in libSQL, keyed by actor kind and id, and the group commit every
 * actor write goes through (the rows that mirror an actor's state included).
 */
export class ActorSnapshotStore {
  private readonly writer: GroupCommit<Write>;

  constructor(private readonly db: Database) {
    this.writer = new GroupCommit(async ([first, ...rest]) => {
      if (first) await this.db.batch([first, ...rest]);
    });
  }

  save(kind: string, id: string, state: unknown, snapshot: unknown, at: Date): Write {
    const row = { state: JSON.stringify(state), snapshot, updatedAt: at };
    return this.db
      .insert(actorSnapshots)
      .values({ kind, id, ...row })
      .onConflictDoUpdate({ target: [actorSnapshots.kind, actorSnapshots.id], set: row });
  }

  remove(kind: string, id: string): Write {
    return this.db.delete(actorSnapshots).where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.id, id)));
  }

  /** Applies writes in one transaction (shared with other writes queued meanwhile): a snapshot and the rows that mirror it never disagree. */
  commit(writes: Write[]): Promise<void> {
    return this.writer.write(writes);
  }

  /** Resolves once every write queued so far has landed. */
  idle(): Promise<void> {
    return this.writer.idle();
  }

  /** In creation order (the rowid survives upserts), so restored actors queue as they did before. */
  async list(kind: string): Promise<Array<{ id: string; snapshot: unknown }>> {
    return this.db
      .select({ id: actorSnapshots.id, snapshot: actorSnapshots.snapshot })
      .from(actorSnapshots)
      .where(eq(actorSnapshots.kind, kind))
      .orderBy(sql`rowid`);
  }

  async load(kind: string, id: string): Promise<unknown | undefined> {
    const row = await this.db
      .select({ snapshot: actorSnapshots.snapshot })
      .from(actorSnapshots)
      .where(and(eq(actorSnapshots.kind, kind), eq(actorSnapshots.id, id)))
      .get();
    return row?.snapshot;
  }
}
