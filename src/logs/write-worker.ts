/**
 * The request-log writer thread. libSQL's embedded driver runs every statement synchronously, so
 * batch inserts run here, on their own connection, instead of stalling the event loop that
 * serves requests. Messages: `open` once, then `write` batches, each answered with its id.
 */
import type { NewRequestLogRow } from "../db/schema/logs";
import { openDatabase } from "../db/client";
import { rowInserter } from "./insert-rows";

export type WorkerRequest = { type: "open"; url: string; authToken?: string } | { type: "write"; id: number; rows: NewRequestLogRow[] };
export type WorkerReply = { id: number; error?: string };

declare const self: Worker;

let insert: Promise<(rows: NewRequestLogRow[]) => Promise<void>> | undefined;

self.onmessage = async ({ data }: MessageEvent<WorkerRequest>) => {
  if (data.type === "open") {
    insert = openDatabase(data.url, data.authToken).then((database) => rowInserter(database.db));
    return;
  }
  try {
    if (!insert) throw new Error("the log writer thread was not opened");
    await (await insert)(data.rows);
    self.postMessage({ id: data.id } satisfies WorkerReply);
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) } satisfies WorkerReply);
  }
};
