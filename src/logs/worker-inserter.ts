import type { NewRequestLogRow } from "../db/schema/logs";
import { INDEX_INSERTED_CONTENT } from "./full-text";
import { driverRowOf, insertStatementFor } from "./log-columns";
import type { WorkerReply, WorkerRequest } from "./write-worker";

export interface WriterDatabase {
  url: string;
  authToken?: string;
}

/**
 * Inserts batches through the writer thread (write-worker.ts). A thread that dies fails the
 * batches it held; the next batch starts a fresh one.
 */
export function workerInserter(database: WriterDatabase) {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  function failPending(reason: string) {
    for (const waiter of pending.values()) waiter.reject(new Error(reason));
    pending.clear();
    worker = undefined;
  }

  function started(): Worker {
    if (worker) return worker;
    const thread = new Worker(new URL("./write-worker.ts", import.meta.url).href);
    thread.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      const waiter = pending.get(data.id);
      pending.delete(data.id);
      if (pending.size === 0) thread.unref();
      if (data.error) waiter?.reject(new Error(data.error));
      else waiter?.resolve();
    };
    thread.onerror = (event) => failPending(`the log writer thread failed: ${event.message}`);
    thread.addEventListener("close", () => failPending("the log writer thread stopped"));
    const statements = { insertRow: insertStatementFor(1), indexContent: INDEX_INSERTED_CONTENT };
    thread.postMessage({ type: "open", url: database.url, authToken: database.authToken, statements } satisfies WorkerRequest);
    worker = thread;
    return thread;
  }

  return {
    insert(rows: NewRequestLogRow[]): Promise<void> {
      const id = nextId++;
      const thread = started();
      // Referenced only while it holds batches: an idle writer must not keep a stopping process
      // alive, and Bun delivers replies from an unreferenced worker far more slowly.
      if (pending.size === 0) thread.ref();
      const done = new Promise<void>((resolve, reject) => pending.set(id, { resolve, reject }));
      thread.postMessage({ type: "write", id, rows: JSON.stringify(rows.map(driverRowOf)) } satisfies WorkerRequest);
      return done;
    },
    /** Stops the thread; call after the writer's last flush. */
    close() {
      worker?.terminate();
      worker = undefined;
    },
  };
}
