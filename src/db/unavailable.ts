import { LibsqlError } from "@libsql/core/api";
import { DrizzleQueryError } from "drizzle-orm";

/**
 * Codes of a database that cannot answer now, as opposed to a statement it refuses: the network
 * to a libSQL server, and SQLite's busy, locked, full, I/O and read-only conditions.
 */
const UNAVAILABLE_CODE = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|ConnectionRefused|ConnectionClosed|FailedToOpenSocket|SERVER_ERROR|HRANA_WEBSOCKET_ERROR|HRANA_CLOSED_ERROR|SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY))/;

/** SQLite codes about the database rather than a statement's values: its state, its memory, its file. */
const STATE_CODE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|NOMEM|INTERRUPT|ABORT|PROTOCOL|CORRUPT|NOTADB|PERM|AUTH|NOLFS)/;

/**
 * An embedded replica's primary out of reach: the driver reports a write it could not hand to the
 * primary, or a sync it could not start, in the message of a plain Error without a code.
 */
const REPLICA_PRIMARY_AWAY = /^(WriteDelegation\(status: (Unavailable|DeadlineExceeded|Cancelled|Unknown, message: "(connection|error trying to connect|transport))|Replication\((PrimaryHandshakeTimeout|Client\(|.*connect))/;

/** A request of the libSQL server protocol (hrana over HTTP); batches fail with fetch's own error, unwrapped. */
const SERVER_PROTOCOL_PATH = /\/v\d+\/(pipeline|cursor)$/;

const isDatabaseError = (error: Error) =>
  error instanceof DrizzleQueryError || error instanceof LibsqlError || SERVER_PROTOCOL_PATH.test(String((error as { path?: unknown }).path ?? "")) || REPLICA_PRIMARY_AWAY.test(error.message);

/** The links of an error's cause chain from its first database error down; none when no database error is in it. */
export function* databaseErrorChain(error: unknown): Generator<Error> {
  let fromDatabase = false;
  for (let link: unknown = error, depth = 0; link instanceof Error && depth < 8; link = link.cause, depth++) {
    fromDatabase ||= isDatabaseError(link);
    if (fromDatabase) yield link;
  }
}

/** Whether `error` is a database query failing because the database is out of reach or busy: worth a 503 and a later retry, not a 500. */
export function databaseUnavailable(error: unknown): boolean {
  for (const link of databaseErrorChain(error)) {
    if (UNAVAILABLE_CODE.test(String((link as { code?: unknown }).code ?? "")) || REPLICA_PRIMARY_AWAY.test(link.message)) return true;
  }
  return false;
}

/**
 * Whether SQLite refused a write for what it holds (a constraint, a type, a size, JSON it cannot
 * read), as opposed to the database's state (busy, locked, out of reach, I/O): the same write
 * would be refused again. Told by the error's SQLite code, on any link of its cause chain.
 */
export function refusedForItsValues(error: unknown): boolean {
  for (let link: unknown = error, depth = 0; link instanceof Error && depth < 8; link = link.cause, depth++) {
    const code = String((link as { code?: unknown }).code ?? "");
    if (code.startsWith("SQLITE_")) return !STATE_CODE.test(code);
  }
  return false;
}
