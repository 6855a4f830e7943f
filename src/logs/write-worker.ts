/**
 * The request-log writer thread. libSQL's embedded driver runs every statement synchronously, so
 * batch inserts run here, on their own connection, instead of stalling the event loop that
 * serves requests. Messages: `open` once, then `write` batches (driver rows as one JSON text,
 * which crosses threads far cheaper than structured objects), each answered with its id.
 */
import { createClient } from "@libsql/client";
import { expandConfig } from "@libsql/core/config";
import { embeddedInserter } from "./embedded-inserter";
import { clientInserter } from "./insert-rows";
import type { DriverRow } from "./log-columns";

export type WorkerRequest = { type: "open"; url: string; authToken?: string } | { type: "write"; id: number; rows: string };
export type WorkerReply = { id: number; error?: string };

declare const self: Worker;

let insert: ((rows: DriverRow[]) => void | Promise<void>) | undefined;

/** A file is written through the driver directly; a libSQL server through the client. */
function inserterFor(url: string, authToken: string | undefined): (rows: DriverRow[]) => void | Promise<void> {
  const { scheme, path } = expandConfig({ url }, true);
  if (scheme === "file") return embeddedInserter(path).insert;
  return clientInserter(createClient({ url, authToken }));
}

self.onmessage = async ({ data }: MessageEvent<WorkerRequest>) => {
  if (data.type === "open") {
    insert = inserterFor(data.url, data.authToken);
    return;
  }
  try {
    if (!insert) throw new Error("the log writer thread was not opened");
    await insert(JSON.parse(data.rows) as DriverRow[]);
    self.postMessage({ id: data.id } satisfies WorkerReply);
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) } satisfies WorkerReply);
  }
};
