/**
 * The request-log writer thread. libSQL's embedded driver runs every statement synchronously, so
 * the log table's writes (batches, deletions, retention sweeps) run here, on their own
 * connection and one at a time, instead of stalling the event loop that serves requests. A batch
 * arrives as one JSON text of driver rows, parsed here, off the event loop. The thread loads only
 * the driver: its SQL comes with the open message, and the client for a libSQL server is loaded
 * only when the database is one.
 */
import { embeddedFilePath } from "../db/embedded-file";
import { embeddedWriter } from "./embedded-writer";
import { rowsOfBatchText } from "./encoded-rows";
import type { TableWrites, WriterStatements } from "./table-writes";
import { serveChannel } from "../db/worker-channel";

export type WriterOpen = { url: string; authToken?: string; syncUrl?: string; statements: WriterStatements };
export type WriteRequest =
  /** `rows`: the batch's text (`batchText`). */
  | { write: "insert"; rows: string; indexContent: boolean }
  | { write: "deleteIds"; ids: string[] }
  | { write: "deleteOlderThan"; cutoffMs: number; limit: number };

async function writerFor({ url, authToken, syncUrl, statements }: WriterOpen) {
  // An embedded replica's file takes no writes of its own: they go to its primary.
  const path = syncUrl ? undefined : embeddedFilePath(url);
  const writes = path ? embeddedWriter(path, statements) : await clientWriterFor(syncUrl ?? url, authToken);
  return (request: WriteRequest) => {
    switch (request.write) {
      case "insert":
        return writes.insert(rowsOfBatchText(request.rows), request.indexContent);
      case "deleteIds":
        return writes.deleteIds(request.ids);
      case "deleteOlderThan":
        return writes.deleteOlderThan(request.cutoffMs, request.limit);
    }
  };
}

async function clientWriterFor(url: string, authToken: string | undefined): Promise<TableWrites> {
  const [{ createClient }, { clientWriter }] = await Promise.all([import("@libsql/client"), import("./client-writer")]);
  return clientWriter(createClient({ url, authToken }));
}

serveChannel(writerFor);
