import { and, asc, gt, max } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";
import { logConditions } from "./conditions";
import type { LiveSource } from "./live-feed";
import { LOG_SUMMARY_COLUMNS, logView } from "./search";
import type { ReadDatabase } from "./worker-reader";

/** Request logs for the live feed: each row as the list of GET /api/logs shows it, once stored, filtered like that list. */
export function requestLogSource(read: ReadDatabase): LiveSource {
  return {
    permission: "Logs:View",
    async last() {
      const [last] = await read.select({ seq: max(requestLogs.seq) }).from(requestLogs);
      return last?.seq ?? 0;
    },
    async after(seq, limit, filters) {
      const rows = await read
        .select(LOG_SUMMARY_COLUMNS)
        .from(requestLogs)
        .where(and(gt(requestLogs.seq, seq), logConditions(filters)))
        .orderBy(asc(requestLogs.seq))
        .limit(limit);
      return rows.map((row) => ({ seq: row.seq, message: JSON.stringify({ type: "log", operation: "create", payload: logView(row) }) }));
    },
  };
}
