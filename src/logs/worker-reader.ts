import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import * as schema from "../db/schema";
import type { ReaderOpen, ReadRequest } from "./read-worker";
import { workerChannel } from "./worker-channel";

/** What the log queries run on: the main connection, or the reader thread's proxy. */
export type ReadDatabase = BaseSQLiteDatabase<"async", unknown, typeof schema>;

/**
 * A drizzle database whose queries run on the reader thread (read-worker.ts) against an embedded
 * file: the logs' dashboard queries then never stall the requests the main thread serves.
 */
export function workerReader(path: string): { db: ReadDatabase; close(): void } {
  const channel = workerChannel<ReadRequest>(new URL("./read-worker.ts", import.meta.url), "log reader", (): ReaderOpen => ({ path }));
  const query = async (sql: string, params: unknown[], method: ReadRequest["method"]) => ({ rows: (await channel.request({ sql, params, method })) as unknown[] });
  return { db: drizzle(query, { schema }), close: channel.close };
}
