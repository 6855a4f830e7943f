import { databaseErrorChain } from "./unavailable";

/** SQLite's words, embedded or on a libSQL server: `UNIQUE constraint failed: table.a, table.b`. */
const UNIQUE_FAILED = /UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)/;

/**
 * The columns whose value another row already holds, when `error` is a write the database refused
 * for that; undefined otherwise. A store checks names before it writes, but two nodes can pass
 * that check at once, and two values that differ only in a lone surrogate are one once stored.
 */
export function duplicatedColumns(error: unknown): string[] | undefined {
  for (const link of databaseErrorChain(error)) {
    const failed = UNIQUE_FAILED.exec(link.message);
    if (failed) return failed[1]!.split(", ").map((column) => column.slice(column.indexOf(".") + 1));
  }
  return undefined;
}
