import { openEmbeddedFile } from "../db/embedded-file";
import type { DriverRow } from "./log-columns";

/** The SQL a writer needs, rendered on the main thread so the writer thread loads no schema code. */
export interface WriterStatements {
  /** A one-row INSERT of every column in `LOG_COLUMN_NAMES` order. */
  insertRow: string;
  /** Full-text indexing of the last `?` rows inserted. */
  indexContent: string;
}

/**
 * Inserts into the embedded file straight through the libSQL driver, with statements prepared
 * once: the client API prepares every statement of every batch again, which cost more than
 * SQLite's own work. A batch is one transaction: its rows, then their full-text indexing.
 */
export function embeddedInserter(path: string, statements: WriterStatements): (rows: DriverRow[]) => void {
  const database = openEmbeddedFile(path);
  const insertRow = database.prepare(statements.insertRow);
  const indexContent = database.prepare(statements.indexContent);
  const insertBatch = database.transaction((rows: DriverRow[]) => {
    for (const row of rows) insertRow.run(row);
    indexContent.run([rows.length]);
  });
  return (rows) => insertBatch.immediate(rows);
}
