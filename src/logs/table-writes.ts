import { type EncodedRow, rowsOfEncoded } from "./encoded-rows";
import { ROLL_UP_GROUPS } from "./group-hours";
import { ROLL_UP_INSERTED } from "./hourly";
import { ROLL_UP_LATENCIES } from "./latency-histogram";
import type { DriverRow } from "./log-columns";

/** What a batch's rows are rolled up into, each statement taking the batch's row count: hourly usage, the latency histogram, hourly usage per group. */
export const ROLL_UPS = [ROLL_UP_INSERTED, ROLL_UP_LATENCIES, ROLL_UP_GROUPS];

/**
 * Every write to the log table, in one place: the writer thread runs them in order on its own
 * connection, so a retention sweep takes its turn between batches instead of stalling the
 * event loop or fighting the writer for the lock.
 */
export interface TableWrites {
  /** `indexContent` false leaves the rows out of the full-text index: for a row whose content SQLite's JSON functions refuse. */
  insert(rows: DriverRow[], indexContent: boolean): void | Promise<void>;
  /** Ids that match no log are ignored. */
  deleteIds(ids: string[]): void | Promise<void>;
  /** Deletes at most `limit` of the oldest logs before `cutoffMs`; returns how many it deleted. */
  deleteOlderThan(cutoffMs: number, limit: number): number | Promise<number>;
}

/** The SQL a writer runs, rendered on the main thread so the writer thread loads no schema code. */
export interface WriterStatements {
  /** A one-row INSERT of every column in `LOG_COLUMN_NAMES` order. */
  insertRow: string;
  /** The same INSERT of `rowsPerInsert` rows: one call to the driver a group, which binds their values at once. */
  insertRows: string;
  rowsPerInsert: number;
  /** Roll-ups of the last `?` rows inserted (`ROLL_UPS`); they run before `indexContent`. */
  rollUps: string[];
  /** Full-text indexing of the last `?` rows inserted. */
  indexContent: string;
  /** Deletes the logs whose ids are in the JSON array bound to it. */
  deleteIds: string;
  /** Deletes at most `?2` of the oldest logs before `?1` (epoch ms). */
  deleteOlderThan: string;
}

/** The main thread's side of the log table's writes. */
export interface LogWriter {
  insert(rows: readonly EncodedRow[], indexContent?: boolean): Promise<void>;
  deleteIds(ids: string[]): Promise<void>;
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
  /** Stops the writer's thread, if it has one; call after the last flush. */
  close(): void;
}

/** A LogWriter over `writes` running on this thread. */
export function logWriterOver(writes: TableWrites): LogWriter {
  return {
    insert: async (rows, indexContent = true) => writes.insert(rowsOfEncoded(rows), indexContent),
    deleteIds: async (ids) => writes.deleteIds(ids),
    deleteOlderThan: async (cutoff, limit) => writes.deleteOlderThan(cutoff.getTime(), limit),
    close() {},
  };
}
