import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { drizzle, type SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy";
import * as schema from "../db/schema";
import type { ReaderOpen, ReadRequest, ReadStatement } from "./read-worker";
import { workerChannel } from "../db/worker-channel";

/** A query whose one row holds one JSON array of numbers (json_group_array). */
export type NumbersQuery = { toSQL(): { sql: string; params: unknown[] } };

/**
 * What the log queries run on: the main connection, or the reader threads' proxy. `batch` reads
 * from one snapshot; `percentilesOf` answers the nearest-rank percentiles of a NumbersQuery.
 */
export type ReadDatabase = BaseSQLiteDatabase<"async", unknown, typeof schema> &
  Pick<SqliteRemoteDatabase<typeof schema>, "batch"> & { percentilesOf(query: NumbersQuery, percentiles: readonly number[]): Promise<Array<number | null>> };

/** A dashboard answer is several independent scans (a window and the one before it, a model each): two threads run them side by side. */
const READER_THREADS = 2;

/**
 * A drizzle database whose queries run on reader threads (read-worker.ts) against an embedded
 * file: the logs' dashboard queries then never stall the requests the main thread serves. Each
 * query goes to the least busy thread; a thread starts only once the others are all busy.
 */
export function workerReader(path: string, threads = READER_THREADS): { db: ReadDatabase; close(): void } {
  const readers = Array.from({ length: threads }, () => ({
    channel: workerChannel<ReadRequest>(new URL("./read-worker.ts", import.meta.url), "log reader", (): ReaderOpen => ({ path })),
    inFlight: 0,
  }));
  async function request(message: ReadRequest): Promise<unknown> {
    const reader = readers.reduce((idlest, candidate) => (candidate.inFlight < idlest.inFlight ? candidate : idlest));
    reader.inFlight++;
    try {
      return await reader.channel.request(message);
    } finally {
      reader.inFlight--;
    }
  }
  const query = async (sql: string, params: unknown[], method: ReadStatement["method"]) => ({ rows: (await request({ sql, params, method })) as unknown[] });
  const batch = async (statements: ReadStatement[]) => ((await request({ batch: statements })) as unknown[][]).map((rows) => ({ rows }));
  const percentilesOf = async (numbers: NumbersQuery, percentiles: readonly number[]) => {
    const { sql, params } = numbers.toSQL();
    return (await request({ sql, params, percentiles })) as Array<number | null>;
  };
  return {
    db: Object.assign(drizzle(query, batch, { schema }), { percentilesOf }),
    close() {
      for (const reader of readers) reader.channel.close();
    },
  };
}
