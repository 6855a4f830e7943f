import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import * as schema from "../db/schema";
import type { ReaderReply, ReaderRequest, ReadMethod } from "./read-worker";

/** What the log queries run on: the main connection, or the reader thread's proxy. */
export type ReadDatabase = BaseSQLiteDatabase<"async", unknown, typeof schema>;

/**
 * A drizzle database whose queries run on the reader thread (read-worker.ts), for the embedded
 * file: the logs' dashboard queries then never stall the requests the main thread serves. The
 * thread starts with the first query and is referenced only while queries are in flight.
 */
export function workerReader(url: string): { db: ReadDatabase; close(): void } {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (rows: unknown) => void; reject: (error: Error) => void }>();

  function failPending(reason: string) {
    for (const waiter of pending.values()) waiter.reject(new Error(reason));
    pending.clear();
    worker = undefined;
  }

  function started(): Worker {
    if (worker) return worker;
    const thread = new Worker(new URL("./read-worker.ts", import.meta.url).href);
    thread.onmessage = ({ data }: MessageEvent<ReaderReply>) => {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (pending.size === 0) thread.unref();
      if (data.error !== undefined) waiter?.reject(new Error(data.error));
      else waiter?.resolve(data.rows);
    };
    thread.onerror = (event) => failPending(`the log reader thread failed: ${event.message}`);
    thread.addEventListener("close", () => failPending("the log reader thread stopped"));
    thread.postMessage({ type: "open", url } satisfies ReaderRequest);
    worker = thread;
    return thread;
  }

  const query = (sql: string, params: unknown[], method: ReadMethod) => {
    const id = nextId++;
    const thread = started();
    if (pending.size === 0) thread.ref();
    const answered = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    thread.postMessage({ type: "query", id, sql, params, method } satisfies ReaderRequest);
    return answered.then((rows) => ({ rows: rows as unknown[] }));
  };

  return {
    db: drizzle(query, { schema }),
    close() {
      worker?.terminate();
      worker = undefined;
    },
  };
}
