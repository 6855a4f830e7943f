/**
 * The request-log reader thread. The embedded libSQL driver runs a statement synchronously on
 * the thread that calls it, so a dashboard query over a large log table (tens to hundreds of
 * milliseconds) would stall every request the main thread serves meanwhile. Queries run here
 * instead, on their own connection, and answer in drizzle's sqlite-proxy shape: rows as arrays.
 */
import { type EmbeddedConnection, openEmbeddedFile } from "../db/embedded-file";
import { boundedCache } from "./bounded-cache";
import { nearestRankPercentiles } from "./percentiles";
import { serveChannel } from "../db/worker-channel";

export type ReaderOpen = { path: string };
export type ReadStatement = { sql: string; params: unknown[]; method: "run" | "all" | "values" | "get" };
/** A query answering one JSON array of numbers in one cell, reduced here to those percentiles. */
export type PercentilesRequest = { sql: string; params: unknown[]; percentiles: readonly number[] };
/** One statement, several read from one snapshot (a page and its total must agree), or percentiles. */
export type ReadRequest = ReadStatement | { batch: ReadStatement[] } | PercentilesRequest;

/** Dashboard queries come in a few shapes; their statements are kept prepared. */
const PREPARED_LIMIT = 64;

type Statement = ReturnType<EmbeddedConnection["prepare"]>;

function reader({ path }: ReaderOpen) {
  const database = openEmbeddedFile(path);
  const statementFor = boundedCache(PREPARED_LIMIT, (sql: string): Statement => database.prepare(sql));

  const run = ({ sql, params, method }: ReadStatement) => {
    if (method === "run") throw new Error("the log reader thread only reads");
    const statement = statementFor(sql).raw(true);
    return method === "get" ? statement.get(params) : statement.all(params);
  };
  // drizzle reads every batch result as a list of rows, a `get` included.
  const snapshot = database.transaction((statements: ReadStatement[]) => statements.map((statement) => run({ ...statement, method: statement.method === "run" ? "run" : "all" })));

  const percentilesOf = ({ sql, params, percentiles }: PercentilesRequest) => {
    const [values] = statementFor(sql).raw(true).get(params) as [string];
    return nearestRankPercentiles(values, percentiles);
  };

  return (request: ReadRequest) => ("batch" in request ? snapshot(request.batch) : "percentiles" in request ? percentilesOf(request) : run(request));
}

serveChannel(reader);
