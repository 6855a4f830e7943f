import type { Client, InStatement } from "@libsql/client";
import { boundedCache } from "./bounded-cache";
import { DELETE_BY_IDS, DELETE_OLDER_THAN } from "./deletion";
import { INDEX_INSERTED_CONTENT } from "./full-text";
import { insertStatementFor, LOG_COLUMN_NAMES } from "./log-columns";
import { ROLL_UPS, type TableWrites } from "./table-writes";

const CACHED_LENGTHS = 8;
/** SQLite binds at most 32,766 parameters to one statement. */
const ROWS_PER_STATEMENT = Math.floor(32_766 / LOG_COLUMN_NAMES.length);

/**
 * Writes through a libSQL client (a libSQL server, or the embedded file when no writer thread
 * is used): a batch is multi-row INSERTs, each followed by the roll-ups and full-text indexing of its rows,
 * in one transaction, so it is one round trip to a server.
 */
export function clientWriter(client: Client): TableWrites {
  // Under load every batch is full, so a few row counts cover it; partial batches are rare and small.
  const statementFor = boundedCache(CACHED_LENGTHS, insertStatementFor);

  return {
    async insert(rows, indexContent) {
      const steps: InStatement[] = [];
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
        steps.push(
          { sql: statementFor(chunk.length), args: chunk.flat() },
          ...ROLL_UPS.map((rollUp) => ({ sql: rollUp, args: [chunk.length] })),
        );
        if (indexContent) steps.push({ sql: INDEX_INSERTED_CONTENT, args: [chunk.length] });
      }
      await client.batch(steps, "write");
    },
    async deleteIds(ids) {
      await client.execute({ sql: DELETE_BY_IDS, args: [JSON.stringify(ids)] });
    },
    async deleteOlderThan(cutoffMs, limit) {
      return (await client.execute({ sql: DELETE_OLDER_THAN, args: [cutoffMs, limit] })).rowsAffected;
    },
  };
}
