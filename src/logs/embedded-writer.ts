import { openEmbeddedFile } from "../db/embedded-file";
import type { DriverRow } from "./log-columns";
import type { TableWrites, WriterStatements } from "./table-writes";

/**
 * Writes to the embedded file straight through the libSQL driver, with statements prepared
 * once: the client API prepares every statement of every batch again, which cost more than
 * SQLite's own work. A batch is one transaction: its rows, their roll-ups, then their full-text indexing.
 */
export function embeddedWriter(path: string, statements: WriterStatements): TableWrites {
  const database = openEmbeddedFile(path);
  const insertRow = database.prepare(statements.insertRow);
  const insertRows = database.prepare(statements.insertRows);
  const group = statements.rowsPerInsert;
  const rollUps = statements.rollUps.map((statement) => database.prepare(statement));
  const indexContent = database.prepare(statements.indexContent);
  const deleteIds = database.prepare(statements.deleteIds);
  const deleteOlderThan = database.prepare(statements.deleteOlderThan);
  const insertBatch = database.transaction((rows: DriverRow[], indexed: boolean) => {
    let next = 0;
    for (; next + group <= rows.length; next += group) insertRows.run(rows.slice(next, next + group).flat());
    for (; next < rows.length; next++) insertRow.run(rows[next]);
    for (const rollUp of rollUps) rollUp.run([rows.length]);
    if (indexed) indexContent.run([rows.length]);
  });
  return {
    insert: (rows, indexed) => insertBatch.immediate(rows, indexed),
    deleteIds: (ids) => void deleteIds.run([JSON.stringify(ids)]),
    deleteOlderThan: (cutoffMs, limit) => deleteOlderThan.run([cutoffMs, limit]).changes,
  };
}
