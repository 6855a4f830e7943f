import { asc, gt, max } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mcpToolLogs } from "../../db/schema";
import type { LiveSource } from "../../logs/live-feed";
import { mcpLogView } from "./search";

/**
 * MCP tool calls for the live feed: `create` when a call starts, `update` when it ends, as
 * GET /api/mcp-logs shows it. A call that starts and ends between two looks comes once, ended.
 */
export function mcpLogSource(db: Database): LiveSource {
  return {
    permission: "MCPLogs:View",
    async last() {
      const [last] = await db.select({ seq: max(mcpToolLogs.changeSeq) }).from(mcpToolLogs);
      return last?.seq ?? 0;
    },
    async after(seq, limit) {
      const rows = await db.select().from(mcpToolLogs).where(gt(mcpToolLogs.changeSeq, seq)).orderBy(asc(mcpToolLogs.changeSeq)).limit(limit);
      return rows.map((row) => ({
        seq: row.changeSeq,
        message: JSON.stringify({ type: "mcp_log", operation: row.status === "processing" ? "create" : "update", payload: mcpLogView(row) }),
      }));
    },
  };
}
