import { getTableColumns } from "drizzle-orm";
import { type NewRequestLogRow, requestLogs } from "../db/schema/logs";
import type { EncodedRow } from "./encoded-rows";

type ColumnKey = Exclude<keyof NewRequestLogRow, "seq">;
type Column = (typeof requestLogs)["_"]["columns"][ColumnKey];

/** A log row as the driver stores it: one value per column of `LOG_COLUMN_NAMES`, in order. */
export type DriverRow = Array<string | number | null>;

// Every column but seq, which SQLite assigns.
const columns = Object.entries(getTableColumns(requestLogs)).filter(([key]) => key !== "seq") as Array<[ColumnKey, Column]>;

export const LOG_COLUMN_NAMES: readonly string[] = columns.map(([, column]) => column.name);

/**
 * `row` encoded with each column's own drizzle mapping (JSON, timestamps, booleans): plain values
 * that bind to SQL as they are.
 */
export function driverRowOf(row: NewRequestLogRow): DriverRow {
  const values: DriverRow = new Array(columns.length);
  for (let index = 0; index < columns.length; index++) {
    const [key, column] = columns[index]!;
    const value = row[key];
    values[index] = value === null || value === undefined ? null : (column.mapToDriverValue(value as never) as string | number);
  }
  return values;
}

/**
 * Lays out rows written with `columns` (as another version of the gateway may have ordered
 * them) as `LOG_COLUMN_NAMES`: columns they did not have are null, ones since dropped go.
 */
export function driverRowLayout(columns: readonly string[]): (values: readonly unknown[]) => DriverRow {
  const positions = LOG_COLUMN_NAMES.map((name) => columns.indexOf(name));
  return (values) => positions.map((position) => (position < 0 ? null : ((values[position] ?? null) as string | number | null)));
}

export const encodedRowOf = (row: NewRequestLogRow): EncodedRow => JSON.stringify(driverRowOf(row));

/** The row `driverRowOf` encoded. */
export function rowFromDriver(values: DriverRow): NewRequestLogRow {
  const row: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index++) {
    const [key, column] = columns[index]!;
    const value = values[index];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value as never);
  }
  return row as NewRequestLogRow;
}

/** `INSERT INTO request_logs (...) VALUES (?, ...), ...` for `count` rows. */
export function insertStatementFor(count: number): string {
  const placeholders = `(${LOG_COLUMN_NAMES.map(() => "?").join(", ")})`;
  return `INSERT INTO "request_logs" (${LOG_COLUMN_NAMES.map((name) => `"${name}"`).join(", ")}) VALUES ${Array.from({ length: count }, () => placeholders).join(", ")}`;
}
