import Database from "libsql";
import { INDEX_INSERTED_CONTENT } from "./full-text";
import { type DriverRow, insertStatementFor } from "./log-columns";

const BUSY_TIMEOUT_MS = 5000;

/**
 * Inserts into the embedded file straight through the libSQL driver, with statements prepared
 * once: the client API prepares every statement of every batch again, which cost more than
 * SQLite's own work. A batch is one transaction: its rows, then their full-text indexing.
 */
export function embeddedInserter(path: string): { insert: (rows: DriverRow[]) => void; close: () => void } {
  const database = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  const insertRow = database.prepare(insertStatementFor(1));
  const indexContent = database.prepare(INDEX_INSERTED_CONTENT);
  const insertBatch = database.transaction((rows: DriverRow[]) => {
    for (const row of rows) insertRow.run(row);
    indexContent.run([rows.length]);
  });
  return { insert: (rows) => insertBatch.immediate(rows), close: () => database.close() };
}
