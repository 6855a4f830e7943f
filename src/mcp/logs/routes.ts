import { Elysia } from "elysia";
import type { Database } from "../../db/client";
import { mcpCostHistogram } from "./cost-histogram";
import { McpLogFilterQuery, readMcpLogFilters } from "./filters";
import { McpLogListQuery, searchMcpLogs } from "./search";
import { replies } from "../../http/replies";
import { McpCostHistogram, McpLogPage } from "./replies";

/** /api/mcp-logs: every MCP tool call, filtered and paged, and its cost over time (spec 4.7). */
export const mcpLogRoutes = (db: Database, clock: () => Date) =>
  new Elysia({ name: "mcp-logs", prefix: "/api/mcp-logs" })
    .get("/", ({ query }) => searchMcpLogs(db, readMcpLogFilters(query, clock()), query), { query: McpLogListQuery, ...replies({ 200: McpLogPage }, { summary: "Search MCP tool calls", description: "A page of tool calls matching the filters, newest first by default." }) })
    .get(
      "/histogram/cost",
      ({ query }) => {
        const now = clock();
        return mcpCostHistogram(db, readMcpLogFilters(query, now), now);
      },
      { query: McpLogFilterQuery, ...replies({ 200: McpCostHistogram }, { summary: "MCP tool call cost over time", description: "Equal buckets aligned to the epoch, sized from the range." }) },
    );
