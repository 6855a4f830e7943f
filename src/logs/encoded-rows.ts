import type { DriverRow } from "./log-columns";

/**
 * A DriverRow as JSON text, encoded once as the row is queued: what the crash journal appends and
 * what crosses to the writer thread, a batch as one string. A structured clone of a batch's values
 * held the event loop ~1 ms per 800 rows, and every request arriving meanwhile with it.
 */
export type EncodedRow = string;

/** Encoded rows as one JSON text, and back: how a batch crosses to the writer thread. */
export const batchText = (rows: readonly EncodedRow[]) => `[${rows.join(",")}]`;
export const rowsOfBatchText = (text: string) => JSON.parse(text) as DriverRow[];

/** Encoded rows decoded, as the table takes them. */
export const rowsOfEncoded = (rows: readonly EncodedRow[]) => rowsOfBatchText(batchText(rows));
