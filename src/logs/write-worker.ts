/**
 * The request-log writer thread. libSQL's embedded driver runs every statement synchronously, so
 * batch inserts run here, on their own connection, instead of stalling the event loop that
 * serves requests. Batches arrive as driver rows in one JSON text, which crosses threads far
 * cheaper than structured objects. The thread loads only the driver: its SQL comes with the
 * open message, and the client for a libSQL server is loaded only when the database is one.
 */
import { embeddedFilePath } from "../db/embedded-file";
import { embeddedInserter, type WriterStatements } from "./embedded-inserter";
import type { DriverRow } from "./log-columns";
import { serveChannel } from "./worker-channel";

export type WriterOpen = { url: string; authToken?: string; statements: WriterStatements };
export type WriteRequest = { rows: string };

async function inserterFor({ url, authToken, statements }: WriterOpen) {
  const path = embeddedFilePath(url);
  const insert = path ? embeddedInserter(path, statements) : await clientInserterFor(url, authToken);
  return ({ rows }: WriteRequest) => insert(JSON.parse(rows) as DriverRow[]);
}

async function clientInserterFor(url: string, authToken: string | undefined) {
  const [{ createClient }, { clientInserter }] = await Promise.all([import("@libsql/client"), import("./insert-rows")]);
  return clientInserter(createClient({ url, authToken }));
}

serveChannel(inserterFor);
