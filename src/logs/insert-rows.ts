import { getTableColumns } from "drizzle-orm";
import type { Database } from "../db/client";
import { type NewRequestLogRow, requestLogs } from "../db/schema/logs";
import { indexInsertedContent } from "./full-text";

type ColumnKey = Exclude<keyof NewRequestLogRow, "seq">;
const CACHED_LENGTHS = 8;

/**
 * The batched writer's multi-row INSERT, with the full-text indexing of the same rows, in one
 * transaction. drizzle's builder spends about 70 µs a row assembling parameters (more than SQLite
 * takes to store the row), which would cap ingestion near 5,000 rows/s. So drizzle renders the
 * statement once per batch length, and each row is encoded with its columns' own driver mapping
 * (JSON, timestamps, booleans) in the order drizzle wrote them.
 */
export function rowInserter(db: Database): (rows: NewRequestLogRow[]) => Promise<void> {
  const columns = Object.entries(getTableColumns(requestLogs)).filter(([key]) => key !== "seq") as Array<[ColumnKey, (typeof requestLogs)["_"]["columns"][ColumnKey]]>;
  const statements = new Map<number, string>();

  function statementFor(rows: NewRequestLogRow[]): string {
    let statement = statements.get(rows.length);
    if (statement === undefined) {
      // Every column but seq gets a placeholder (an undefined value would be rendered inline).
      const template = Object.fromEntries(columns.map(([key]) => [key, null])) as unknown as NewRequestLogRow;
      const rendered = db.insert(requestLogs).values(rows.map(() => template)).toSQL();
      if (rendered.params.length !== rows.length * columns.length) throw new Error("request log insert: unexpected statement shape");
      statement = rendered.sql;
      // Under load every batch is full, so a few lengths cover it; partial batches are rare and small.
      if (statements.size >= CACHED_LENGTHS) statements.delete(statements.keys().next().value!);
      statements.set(rows.length, statement);
    }
    return statement;
  }

  return async (rows) => {
    const args = rows.flatMap((row) => columns.map(([key, column]) => (row[key] === null || row[key] === undefined ? null : (column.mapToDriverValue(row[key] as never) as string | number))));
    await db.$client.batch([{ sql: statementFor(rows), args }, indexInsertedContent(rows.length)], "write");
  };
}
