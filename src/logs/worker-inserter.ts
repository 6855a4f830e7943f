import type { NewRequestLogRow } from "../db/schema/logs";
import { INDEX_INSERTED_CONTENT } from "./full-text";
import { driverRowOf, insertStatementFor } from "./log-columns";
import { workerChannel } from "./worker-channel";
import type { WriteRequest, WriterOpen } from "./write-worker";

export interface WriterDatabase {
  url: string;
  authToken?: string;
}

/** Inserts batches through the writer thread (write-worker.ts). */
export function workerInserter(database: WriterDatabase) {
  const open = (): WriterOpen => ({ ...database, statements: { insertRow: insertStatementFor(1), indexContent: INDEX_INSERTED_CONTENT } });
  const channel = workerChannel<WriteRequest>(new URL("./write-worker.ts", import.meta.url), "log writer", open);
  return {
    async insert(rows: NewRequestLogRow[]): Promise<void> {
      await channel.request({ rows: JSON.stringify(rows.map(driverRowOf)) });
    },
    /** Stops the thread; call after the writer's last flush. */
    close: channel.close,
  };
}
