import { count, getTableName, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client";
import { FailureStreak } from "./failure-streak";

/** A table whose every write sets its `updatedAt` column. */
export type WatchedTable = SQLiteTable & { updatedAt: SQLiteColumn };

/** How often a node looks for changes another node on the same database made. */
export const CHANGE_CHECK_MS = 1_000;

/**
 * The value to set `updatedAt` (epoch ms) to on an update: `at`, or one past the value it held
 * if that is not earlier, so that every write moves it (and with it the change check's sum), even
 * two within one millisecond or under a clock that stands still.
 */
export const advancedUpdatedAt = (updatedAt: SQLiteColumn, at: number): SQL => sql`max(${updatedAt} + 1, ${at})`;

/**
 * Calls `reload` whenever another connection (another node on the same libSQL server) may have
 * written one of `tables`: checked every `intervalMs` by each table's row count and the sum of
 * its updated_at, which an insert, an update or a delete changes. This node's own writes are
 * noticed too and reload once, harmlessly. Call it before the first load: the tables are
 * fingerprinted at once, so a write landing during that load is not missed. The timer never
 * keeps the process alive.
 */
export function reloadOnChange(db: Database, tables: readonly WatchedTable[], reload: () => Promise<void>, intervalMs = CHANGE_CHECK_MS) {
  const fingerprint = async () =>
    JSON.stringify(await Promise.all(tables.map((table) => db.select({ rows: count(), stamps: sql<number>`coalesce(sum(${table.updatedAt}), 0)` }).from(table))));
  let seen: Promise<string> = fingerprint();
  let running: Promise<void> | undefined;
  async function check() {
    const [before, now] = [await seen, await fingerprint()];
    if (now === before) return;
    await reload();
    seen = Promise.resolve(now);
  }
  const failures = new FailureStreak(`checking ${tables.map((table) => getTableName(table)).join(", ")} for changes`);
  const timer = setInterval(() => {
    running ??= check()
      .then(() => failures.succeeded(), (error) => failures.failed(error))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref?.();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Counts a store's own writes to the tables it reloads, so that a reload whose read one of them
 * overtook reads again rather than putting back what the write replaced.
 */
export class LocalWrites {
  private count = 0;

  wrote(): void {
    this.count++;
  }

  async readUnraced<T>(read: () => Promise<T>): Promise<T> {
    for (;;) {
      const before = this.count;
      const value = await read();
      if (before === this.count) return value;
    }
  }
}
