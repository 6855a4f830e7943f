/**
 * The request-log reader thread. The embedded libSQL driver runs a statement synchronously on
 * the thread that calls it, so a dashboard query over a large log table (tens to hundreds of
 * milliseconds) would stall every request the main thread serves meanwhile. Queries run here
 * instead, on their own connection, and answer in drizzle's sqlite-proxy shape: rows as arrays.
 */
import { type EmbeddedConnection, openEmbeddedFile } from "../db/embedded-file";
import { boundedCache } from "./bounded-cache";
import { serveChannel } from "./worker-channel";

export type ReaderOpen = { path: string };
export type ReadRequest = { sql: string; params: unknown[]; method: "run" | "all" | "values" | "get" };

/** Dashboard queries come in a few shapes; their statements are kept prepared. */
const PREPARED_LIMIT = 64;

type Statement = ReturnType<EmbeddedConnection["prepare"]>;

function reader({ path }: ReaderOpen) {
  const database = openEmbeddedFile(path);
  const statementFor = boundedCache(PREPARED_LIMIT, (sql: string): Statement => database.prepare(sql));

  return ({ sql, params, method }: ReadRequest) => {
    if (method === "run") throw new Error("the log reader thread only reads");
    const statement = statementFor(sql).raw(true);
    return method === "get" ? statement.get(params) : statement.all(params);
  };
}

serveChannel(reader);
