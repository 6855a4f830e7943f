import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { drizzle, type SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy";
import * as schema from "../db/schema";
import type { ReaderOpen, ReadRequest, ReadStatement } from "./read-worker";
import { workerChannel } from "./worker-channel";

/** What the log queries run on: the main connection, or the reader thread's proxy; `batch` reads from one snapshot. */
export type ReadDatabase = BaseSQLiteDatabase<"async", unknown, typeof schema> & Pick<SqliteRemoteDatabase<typeof schema>, "batch">;

/**
 * A drizzle database whose queries run on the reader thread (read-worker.ts) against an embedded
 * file: the logs' dashboard queries then never stall the requests the main thread serves.
 */
export function workerReader(path: string): { db: ReadDatabase; close(): void } {
  const channel = workerChannel<ReadRequest>(new URL("./read-worker.ts", import.meta.url), "log reader", (): ReaderOpen => ({ path }));
  const query = async (sql: string, params: unknown[], method: ReadStatement["method"]) => ({ rows: (await channel.request({ sql, params, method })) as unknown[] });
  const batch = async (statements: ReadStatement[]) => ((await channel.request({ batch: statements })) as unknown[][]).map((rows) => ({ rows }));
  return { db: drizzle(query, batch, { schema }), close: channel.close };
}
