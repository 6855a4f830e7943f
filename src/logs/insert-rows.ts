import type { InStatement } from "@libsql/client";
import { getTableColumns } from "drizzle-orm";
import type { Database } from "../db/client";
import { type NewRequestLogRow, requestLogs } from "../db/schema/logs";
import { indexInsertedContent } from "./full-text";

type ColumnKey = Exclude<keyof NewRequestLogRow, "seq">;
const CACHED_LENGTHS = 8;
/** SQLite binds at most 32,766 parameters to one statement. */
const MAX_PARAMETERS = 32_766;

/**
 * The batched writer's multi-row INSERTs, each followed by the full-text indexing of its rows,
 * in one transaction. drizzle's builder spends about 70 µs a row assembling parameters (more
 * than SQLite takes to store the row), which would cap ingestion near 5,000 rows/s. So drizzle
 * renders the statement once per row count, and each row is encoded with its columns' own
 * driver mapping (JSON, timestamps, booleans) in the order drizzle wrote them.
 */
export function rowInserter(db: Database): (rows: NewRequestLogRow[]) => Promise<void> {
  const columns = Object.entries(getTableColumns(requestLogs)).filter(([key]) => key !== "seq") as Array<[ColumnKey, (typeof requestLogs)["_"]["columns"][ColumnKey]]>;
  const rowsPerStatement = Math.floor(MAX_PARAMETERS / columns.length);
  const statements = new Map<number, string>();

  function statementFor(count: number): string {
    let statement = statements.get(count);
    if (statement === undefined) {
      // Every column but seq gets a placeholder (an undefined value would be rendered inline).
      const template = Object.fromEntries(columns.map(([key]) => [key, null])) as unknown as NewRequestLogRow;
      const rendered = db.insert(requestLogs).values(Array.from({ length: count }, () => template)).toSQL();
      if (rendered.params.length !== count * columns.length) throw new Error("request log insert: unexpected statement shape");
      statement = rendered.sql;
      // Under load every batch is full, so a few row counts cover it; partial batches are rare and small.
      if (statements.size >= CACHED_LENGTHS) statements.delete(statements.keys().next().value!);
      statements.set(count, statement);
    }
    return statement;
  }

  function insertOf(rows: NewRequestLogRow[]): InStatement {
    const args = rows.flatMap((row) => columns.map(([key, column]) => (row[key] === null || row[key] === undefined ? null : (column.mapToDriverValue(row[key] as never) as string | number))));
    return { sql: statementFor(rows.length), args };
  }

  return async (rows) => {
    const steps: InStatement[] = [];
    for (let start = 0; start < rows.length; start += rowsPerStatement) {
      const chunk = rows.slice(start, start + rowsPerStatement);
      steps.push(insertOf(chunk), indexInsertedContent(chunk.length));
    }
    await db.$client.batch(steps, "write");
  };
}
