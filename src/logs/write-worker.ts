/**
 * The request-log writer thread. libSQL's embedded driver runs every statement synchronously, so
 * batch inserts run here, on their own connection, instead of stalling the event loop that
 * serves requests. Messages: `open` once, then `write` batches (driver rows as one JSON text,
 * which crosses threads far cheaper than structured objects), each answered with its id. The
 * thread loads only the driver: its SQL comes with `open`, and the client for a libSQL server
 * is loaded only when the database is one.
 */
import { expandConfig } from "@libsql/core/config";
import { embeddedInserter, type WriterStatements } from "./embedded-inserter";
import type { DriverRow } from "./log-columns";

export type WorkerRequest = { type: "open"; url: string; authToken?: string; statements: WriterStatements } | { type: "write"; id: number; rows: string };
export type WorkerReply = { id: number; error?: string };

declare const self: Worker;

type Insert = (rows: DriverRow[]) => void | Promise<void>;
let insert: Promise<Insert> | undefined;

async function inserterFor({ url, authToken, statements }: Extract<WorkerRequest, { type: "open" }>): Promise<Insert> {
  const { scheme, path } = expandConfig({ url }, true);
  if (scheme === "file") return embeddedInserter(path, statements);
  const [{ createClient }, { clientInserter }] = await Promise.all([import("@libsql/client"), import("./insert-rows")]);
  return clientInserter(createClient({ url, authToken }));
}

self.onmessage = async ({ data }: MessageEvent<WorkerRequest>) => {
  if (data.type === "open") {
    insert = inserterFor(data);
    return;
  }
  try {
    if (!insert) throw new Error("the log writer thread was not opened");
    await (await insert)(JSON.parse(data.rows) as DriverRow[]);
    self.postMessage({ id: data.id } satisfies WorkerReply);
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) } satisfies WorkerReply);
  }
};
