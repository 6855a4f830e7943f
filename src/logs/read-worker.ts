/**
 * The request-log reader thread. The embedded libSQL driver runs a statement synchronously on
 * the thread that calls it, so a dashboard query over a large log table (tens to hundreds of
 * milliseconds) would stall every request the main thread serves meanwhile. Queries run here
 * instead, on their own connection, and answer in drizzle's sqlite-proxy shape: rows as arrays.
 */
import { expandConfig } from "@libsql/core/config";
import Database from "libsql";

export type ReadMethod = "run" | "all" | "values" | "get";
export type ReaderRequest = { type: "open"; url: string } | { type: "query"; id: number; sql: string; params: unknown[]; method: ReadMethod };
export type ReaderReply = { id: number; rows?: unknown; error?: string };

declare const self: Worker;

const BUSY_TIMEOUT_MS = 5000;
/** Dashboard queries come in a few shapes; their statements are kept prepared. */
const PREPARED_LIMIT = 64;

type Connection = InstanceType<typeof Database>;
type Statement = ReturnType<Connection["prepare"]>;

let database: Connection | undefined;
const prepared = new Map<string, Statement>();

function statementFor(sql: string): Statement {
  let statement = prepared.get(sql);
  if (!statement) {
    if (prepared.size >= PREPARED_LIMIT) prepared.delete(prepared.keys().next().value!);
    prepared.set(sql, (statement = database!.prepare(sql)));
  }
  return statement;
}

function run(sql: string, params: unknown[], method: ReadMethod): unknown {
  const statement = statementFor(sql);
  if (method === "run") {
    statement.run(params);
    return [];
  }
  const raw = statement.raw(true);
  return method === "get" ? raw.get(params) : raw.all(params);
}

self.onmessage = ({ data }: MessageEvent<ReaderRequest>) => {
  if (data.type === "open") {
    database = new Database(expandConfig({ url: data.url }, true).path, { timeout: BUSY_TIMEOUT_MS });
    return;
  }
  try {
    if (!database) throw new Error("the log reader thread was not opened");
    self.postMessage({ id: data.id, rows: run(data.sql, data.params, data.method) } satisfies ReaderReply);
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) } satisfies ReaderReply);
  }
};
