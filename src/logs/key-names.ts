import { and, desc, eq, sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { logConditions } from "./conditions";
import type { LogFilters } from "./filters";
import type { TimeWindow } from "./time-window";
import type { ReadDatabase } from "./worker-reader";

/**
 * The name logged with each virtual key's latest request in `window` (null when it had none):
 * one step down the virtual key index per key, where grouping the window's rows would read them all.
 */
export async function keyNames(db: ReadDatabase, filters: LogFilters, window: TimeWindow, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const latest = db
    .select({ name: requestLogs.virtualKeyName })
    .from(requestLogs)
    .where(and(eq(requestLogs.virtualKeyId, sql`ids.value`), logConditions(filters, window)))
    .orderBy(desc(requestLogs.timestamp))
    .limit(1);
  const rows = await db
    .select({ id: sql<string>`ids.value`, name: sql<string | null>`(${latest})` })
    .from(sql`json_each(${JSON.stringify(ids)}) AS ids`);
  return new Map(rows.map((row) => [row.id, row.name]));
}
