import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/**
 * Case-insensitive substring match. instr() instead of LIKE, so `%` and `_` typed by a user
 * are matched literally rather than as wildcards.
 */
export const containsText = (column: AnyColumn | SQL, text: string): SQL => sql`instr(lower(${column}), lower(${text})) > 0`;
