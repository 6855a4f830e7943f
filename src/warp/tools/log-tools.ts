import { Type as t } from "@sinclair/typebox";
import type { LogFilters } from "../../logs/filters";
import { modelRankings } from "../../logs/rankings";
import { getLog, searchLogs } from "../../logs/search";
import { logStats } from "../../logs/stats";
import type { ReadDatabase } from "../../logs/worker-reader";
import { LIMITS } from "../config/schema";
import { compactLog, logWithContent } from "./log-views";
import { LogFilterArgs, logFiltersOf } from "./log-filter-args";
import { defineTool, type WarpTool } from "./tool";

const MAX_ROWS = LIMITS.semanticSearchLimit;
const rowLimit = (description: string) => t.Optional(t.Integer({ minimum: 1, maximum: MAX_ROWS, description: `${description}; 1..${MAX_ROWS}, default 10` }));

const windowOf = (filters: LogFilters) => ({ start: filters.window.start?.toISOString() ?? null, end: filters.window.end?.toISOString() ?? null });

const queryLogs = (db: ReadDatabase) =>
  defineTool({
    name: "query_logs",
    description: "Lists request logs matching filters, newest first unless sorted otherwise, without their content. Covers the last 24 hours unless a range is given.",
    permission: "Logs:View",
    parameters: t.Object({
      ...LogFilterArgs,
      limit: rowLimit("rows to return"),
      sort_by: t.Optional(t.Union([t.Literal("timestamp"), t.Literal("latency"), t.Literal("tokens"), t.Literal("cost")])),
      order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
    }),
    async run(args, { now }) {
      const filters = logFiltersOf(args, now);
      const page = await searchLogs(db, filters, { limit: args.limit ?? 10, offset: 0, sortBy: args.sort_by ?? "timestamp", order: args.order ?? "desc" });
      return { window: windowOf(filters), total_matching: page.total, returned: page.count, logs: page.logs.map(compactLog) };
    },
  });

const getLogDetail = (db: ReadDatabase) =>
  defineTool({
    name: "get_log",
    description: "Reads one request log by id, with its request and response content (shortened when long) and its attempt trail.",
    permission: "Logs:View",
    parameters: t.Object({ id: t.String({ minLength: 1, description: "the log's id" }) }),
    run: async (args) => logWithContent(await getLog(db, args.id)),
  });

const countLogs = (db: ReadDatabase) =>
  defineTool({
    name: "count_logs",
    description: "Counts request logs matching filters. Covers the last 24 hours unless a range is given.",
    permission: "Logs:View",
    parameters: t.Object(LogFilterArgs),
    async run(args, { now }) {
      const filters = logFiltersOf(args, now);
      const page = await searchLogs(db, filters, { limit: 1, offset: 0, sortBy: "timestamp", order: "desc" });
      return { window: windowOf(filters), count: page.total };
    },
  });

type Ranking = Awaited<ReturnType<typeof modelRankings>>["rankings"][number];

/** Ranking rows summed per provider; the latency is the request-weighted mean. */
function byProvider(rows: Ranking[]) {
  const totals = new Map<string, { provider: string; total_requests: number; error_count: number; input_tokens: number; output_tokens: number; total_tokens: number; total_cost: number; latency_sum: number }>();
  for (const row of rows) {
    const entry = totals.get(row.provider) ?? { provider: row.provider, total_requests: 0, error_count: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, total_cost: 0, latency_sum: 0 };
    entry.total_requests += row.total_requests;
    entry.error_count += row.error_count;
    entry.input_tokens += row.input_tokens;
    entry.output_tokens += row.output_tokens;
    entry.total_tokens += row.total_tokens;
    entry.total_cost += row.total_cost;
    entry.latency_sum += row.avg_latency * row.total_requests;
    totals.set(row.provider, entry);
  }
  return [...totals.values()]
    .map(({ latency_sum, ...entry }) => ({ ...entry, avg_latency: entry.total_requests ? latency_sum / entry.total_requests : 0 }))
    .sort((a, b) => b.total_requests - a.total_requests)
    .slice(0, MAX_ROWS);
}

const byModel = (rows: Ranking[]) => rows.map(({ trend: _trend, ...row }) => row);

const metrics = (db: ReadDatabase) =>
  defineTool({
    name: "get_metrics",
    description:
      "Requests, errors, tokens, cost (USD) and latency (ms) over a period: totals with latency percentiles and the change against the previous period of equal length, or one row per provider or per model. Covers the last 24 hours unless a range is given.",
    permission: "Logs:View",
    parameters: t.Object({ ...LogFilterArgs, group_by: t.Optional(t.Union([t.Literal("provider"), t.Literal("model")], { description: "omit for totals" })) }),
    async run(args, { now }) {
      const filters = logFiltersOf(args, now);
      if (!args.group_by) return { window: windowOf(filters), ...(await logStats(db, filters, now)) };
      const { rankings } = await modelRankings(db, filters, { limit: MAX_ROWS, all: args.group_by === "provider" }, now);
      return { window: windowOf(filters), group_by: args.group_by, rows: args.group_by === "provider" ? byProvider(rankings) : byModel(rankings) };
    },
  });

const rankings = (db: ReadDatabase) =>
  defineTool({
    name: "get_model_rankings",
    description: "Models ranked by requests (then tokens) with their errors, tokens, cost and latency, and each figure's trend against the previous period of equal length. Covers the last 24 hours unless a range is given.",
    permission: "Logs:View",
    parameters: t.Object({ ...LogFilterArgs, limit: rowLimit("models to rank") }),
    async run(args, { now }) {
      const filters = logFiltersOf(args, now);
      return { window: windowOf(filters), ...(await modelRankings(db, filters, { limit: args.limit ?? 10, all: false }, now)) };
    },
  });

/** The tools over request logs (spec 4.10's filters): list, detail, count, metrics, rankings. */
export const logTools = (db: ReadDatabase): WarpTool[] => [queryLogs(db), getLogDetail(db), countLogs(db), metrics(db), rankings(db)];
