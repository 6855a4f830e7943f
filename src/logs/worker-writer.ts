import { DELETE_BY_IDS, DELETE_OLDER_THAN } from "./deletion";
import { batchText } from "./encoded-rows";
import { INDEX_INSERTED_CONTENT } from "./full-text";
import { insertStatementFor } from "./log-columns";
import { type LogWriter, ROLL_UPS } from "./table-writes";
import { workerChannel } from "../db/worker-channel";

/** Rows one INSERT takes on the writer thread: 32 cost ~1 µs of CPU a row less than one at a time (of ~11). */
const ROWS_PER_INSERT = 32;
import type { WriteRequest, WriterOpen } from "./write-worker";

export interface WriterDatabase {
  url: string;
  authToken?: string;
  /** An embedded replica's primary: the thread writes through to it, the replica receives the rows at its next sync. */
  syncUrl?: string;
}

/** Writes to the log table through the writer thread (write-worker.ts), in the order they are asked for. */
export function workerWriter(database: WriterDatabase): LogWriter {
  const open = (): WriterOpen => ({
    ...database,
    statements: { insertRow: insertStatementFor(1), insertRows: insertStatementFor(ROWS_PER_INSERT), rowsPerInsert: ROWS_PER_INSERT, rollUps: ROLL_UPS, indexContent: INDEX_INSERTED_CONTENT, deleteIds: DELETE_BY_IDS, deleteOlderThan: DELETE_OLDER_THAN },
  });
  const channel = workerChannel<WriteRequest>(new URL("./write-worker.ts", import.meta.url), "log writer", open);
  return {
    async insert(rows, indexContent = true) {
      await channel.request({ write: "insert", rows: batchText(rows), indexContent });
    },
    async deleteIds(ids) {
      await channel.request({ write: "deleteIds", ids });
    },
    async deleteOlderThan(cutoff, limit) {
      return (await channel.request({ write: "deleteOlderThan", cutoffMs: cutoff.getTime(), limit })) as number;
    },
    close: channel.close,
  };
}
