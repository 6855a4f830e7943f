import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { avg, count, desc, sql, sum } from "drizzle-orm";
import { mcpToolLogs } from "../../db/schema";
import { budgetUsage, limitsOfCaller, rateLimitUsage } from "../../governance/limits/usage-report";
import type { Governance } from "../../governance";
import { badRequest } from "../../http/errors";
import { logStats } from "../../logs/stats";
import type { ReadDatabase } from "../../logs/worker-reader";
import { McpLogFilterQuery, readMcpLogFilters } from "../../mcp/logs/filters";
import { LIMITS } from "../config/schema";
import { DEFAULT_LOOK_BACK, LogFilterArgs, logFiltersOf } from "./log-filter-args";
import { defineTool, type WarpTool } from "./tool";

const MAX_ROWS = LIMITS.semanticSearchLimit;
const RangeArgs = { start_time: LogFilterArgs.start_time, end_time: LogFilterArgs.end_time, period: LogFilterArgs.period };
type RangeArgs = { start_time?: string; end_time?: string; period?: string };

const rangeOf = (args: RangeArgs) => (args.start_time || args.end_time || args.period ? { start_time: args.start_time, end_time: args.end_time, period: args.period } : { period: DEFAULT_LOOK_BACK });

const virtualKeyUsage = (db: ReadDatabase, governance: Governance) =>
  defineTool({
    name: "get_virtual_key_usage",
    description: `Per virtual key: requests, errors, tokens, cost (USD) and latency over a period (last 24 hours unless a range is given), and every budget and rate limit with the current window's usage. At most ${MAX_ROWS} keys.`,
    permission: "VirtualKeys:View",
    parameters: t.Object({ virtual_keys: t.Optional(t.Array(t.String(), { description: "ids or names; omit for every key" })), ...RangeArgs }),
    async run(args, { now }) {
      const wanted = new Set(args.virtual_keys ?? []);
      const keys = governance.virtualKeys.keys.all().filter((key) => wanted.size === 0 || wanted.has(key.id) || wanted.has(key.name));
      const rows = await Promise.all(
        keys.slice(0, MAX_ROWS).map(async (key) => {
          const stats = await logStats(db, logFiltersOf({ virtual_key_ids: [key.id], start_time: args.start_time, end_time: args.end_time, period: args.period }, now), now);
          const limits = limitsOfCaller({ key });
          return {
            id: key.id,
            name: key.name,
            is_active: key.isActive,
            team_id: key.teamId,
            customer_id: key.customerId,
            usage: { total_requests: stats.total_requests, error_count: stats.error_count, total_tokens: stats.total_tokens, total_cost: stats.total_cost, average_latency: stats.average_latency },
            budgets: budgetUsage(limits, governance.counters),
            rate_limits: rateLimitUsage(limits, governance.counters),
          };
        }),
      );
      return { total_keys: keys.length, virtual_keys: rows };
    },
  });

const McpUsageArgs = t.Object({
  tool_names: t.Optional(t.Array(t.String())),
  server_labels: t.Optional(t.Array(t.String())),
  status: t.Optional(t.Array(t.Union([t.Literal("processing"), t.Literal("success"), t.Literal("error")]))),
  virtual_key_ids: t.Optional(t.Array(t.String())),
  ...RangeArgs,
});

function mcpQueryOf(args: typeof McpUsageArgs.static): McpLogFilterQuery {
  const lists = Object.fromEntries((["tool_names", "server_labels", "status", "virtual_key_ids"] as const).filter((name) => args[name]?.length).map((name) => [name, args[name]!.join(",")]));
  const query = { ...lists, ...rangeOf(args) };
  const error = Value.Errors(McpLogFilterQuery, query).First();
  if (error) throw badRequest(`filter '${error.path.slice(1)}': ${error.message}`, error.path.slice(1));
  return query as McpLogFilterQuery;
}

const mcpToolUsage = (db: ReadDatabase) =>
  defineTool({
    name: "get_mcp_tool_usage",
    description: `MCP tool calls per tool and server over a period (last 24 hours unless a range is given): calls, successes, errors, cost (USD) and average latency (ms), busiest first, at most ${MAX_ROWS} rows.`,
    permission: "MCPLogs:View",
    parameters: McpUsageArgs,
    async run(args, { now }) {
      const filters = readMcpLogFilters(mcpQueryOf(args), now);
      const calls = count();
      const rows = await db
        .select({
          tool_name: mcpToolLogs.toolName,
          server_label: mcpToolLogs.serverLabel,
          calls,
          successes: sql<number>`coalesce(sum(${mcpToolLogs.status} = 'success'), 0)`.mapWith(Number),
          errors: sql<number>`coalesce(sum(${mcpToolLogs.status} = 'error'), 0)`.mapWith(Number),
          total_cost: sql<number>`coalesce(${sum(mcpToolLogs.cost)}, 0)`.mapWith(Number),
          average_latency: avg(mcpToolLogs.latencyMs).mapWith(Number),
        })
        .from(mcpToolLogs)
        .where(filters.where)
        .groupBy(mcpToolLogs.toolName, mcpToolLogs.serverLabel)
        .orderBy(desc(calls))
        .limit(MAX_ROWS);
      return { window: { start: filters.window.start?.toISOString() ?? null, end: filters.window.end?.toISOString() ?? null }, tools: rows };
    },
  });

/** Usage beyond request logs: virtual keys with their limits, and MCP tool calls. */
export const usageTools = (db: ReadDatabase, governance: Governance): WarpTool[] => [virtualKeyUsage(db, governance), mcpToolUsage(db)];
