import { sql } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import type { ReadDatabase } from "./worker-reader";

/** Enough of the latest rows to name the keys in use, read in the same time however large the log is. */
const RECENT_ROWS = 10_000;

export const MetadataKeys = t.Object({
  keys: t.Array(t.String(), { description: `The metadata keys of the latest ${RECENT_ROWS.toLocaleString("en")} requests, sorted.` }),
});

/** The metadata keys requests carried lately: what analytics can group by and the logs can filter on. */
export async function recentMetadataKeys(db: ReadDatabase): Promise<Static<typeof MetadataKeys>> {
  const rows = await db.values<[string]>(
    sql`SELECT DISTINCT entry.key AS key FROM (SELECT metadata FROM request_logs ORDER BY seq DESC LIMIT ${sql.raw(String(RECENT_ROWS))}) AS recent, json_each(recent.metadata) AS entry ORDER BY 1`,
  );
  return { keys: rows.map(([key]) => key) };
}
