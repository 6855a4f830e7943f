import { type TArray, type TOptional, type TString, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { badRequest } from "../../http/errors";
import { LIST_FILTERS, type ListFilter, LogFilterQuery, type LogFilters, readLogFilters } from "../../logs/filters";
import { PERIOD_PATTERN } from "../../logs/time-window";
import { WARP_METADATA_KEY } from "../pipeline";
import { Timestamp } from "../../http/timestamps";

/** The look-back of a question that names no time range. */
export const DEFAULT_LOOK_BACK = "24h";

const listArgs = Object.fromEntries(LIST_FILTERS.map((name) => [name, t.Optional(t.Array(t.String(), { description: "any of these values" }))])) as Record<ListFilter, TOptional<TArray<TString>>>;

/**
 * Spec 4.10's log filters as tool arguments: lists as arrays and numbers as numbers, which
 * models write more reliably than the API's comma-separated query strings.
 */
export const LogFilterArgs = {
  ...listArgs,
  status: t.Optional(t.Array(t.Union([t.Literal("processing"), t.Literal("success"), t.Literal("error")]))),
  start_time: t.Optional(Timestamp({ description: "RFC 3339 start of the range" })),
  end_time: t.Optional(Timestamp({ description: "RFC 3339 end of the range" })),
  period: t.Optional(t.String({ pattern: PERIOD_PATTERN, description: `relative range ending now, e.g. 30m, 24h, 7d, 1M; default ${DEFAULT_LOOK_BACK} when no range is given` })),
  min_latency: t.Optional(t.Number({ minimum: 0, description: "milliseconds" })),
  max_latency: t.Optional(t.Number({ minimum: 0, description: "milliseconds" })),
  min_cost: t.Optional(t.Number({ minimum: 0, description: "USD" })),
  max_cost: t.Optional(t.Number({ minimum: 0, description: "USD" })),
  min_tokens: t.Optional(t.Integer({ minimum: 0 })),
  max_tokens: t.Optional(t.Integer({ minimum: 0 })),
  missing_cost_only: t.Optional(t.Boolean()),
  parent_request_id: t.Optional(t.String()),
  session_id: t.Optional(t.String()),
  request_id: t.Optional(t.String({ description: "exact log id; ignores the time range" })),
  content_search: t.Optional(t.String({ description: "words the logged request or response content contains" })),
  metadata: t.Optional(t.Record(t.String(), t.String(), { description: "metadata key/value pairs a log must carry" })),
  include_agent_requests: t.Optional(t.Boolean({ description: "also count the requests this assistant made itself (left out by default)" })),
};
const LogFilterArgsObject = t.Object(LogFilterArgs);
type LogFilterArgs = typeof LogFilterArgsObject.static;

const TEXT_FIELDS = ["start_time", "end_time", "period", "parent_request_id", "session_id", "request_id", "content_search"] as const;
const NUMBER_FIELDS = ["min_latency", "max_latency", "min_cost", "max_cost", "min_tokens", "max_tokens"] as const;

/** The /api/logs query the arguments stand for, with the default look-back when no range is named. */
function queryOf(args: LogFilterArgs): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const name of LIST_FILTERS) if (args[name]?.length) query[name] = args[name].join(",");
  for (const name of TEXT_FIELDS) if (args[name] !== undefined) query[name] = args[name];
  for (const name of NUMBER_FIELDS) if (args[name] !== undefined) query[name] = String(args[name]);
  if (args.missing_cost_only !== undefined) query.missing_cost_only = args.missing_cost_only;
  for (const [key, value] of Object.entries(args.metadata ?? {})) query[`metadata_${key}`] = value;
  if (!args.start_time && !args.end_time && !args.period && !args.request_id) query.period = DEFAULT_LOOK_BACK;
  return query;
}

/**
 * Reads the arguments exactly as GET /api/logs reads its query, so both accept the same filters;
 * the agent's own requests are left out unless asked for.
 */
export function logFiltersOf(args: LogFilterArgs, now: Date): LogFilters {
  const query = queryOf(args);
  const error = Value.Errors(LogFilterQuery, query).First();
  if (error) throw badRequest(`filter '${error.path.slice(1)}': ${error.message}`, error.path.slice(1));
  const filters = readLogFilters(query as LogFilterQuery, now);
  // The agent's own calls would otherwise be counted in the answers they produce (rows written
  // before internal_caller existed are known by their metadata).
  return args.include_agent_requests ? { ...filters, origin: "all" } : { ...filters, withoutMetadataKeys: [WARP_METADATA_KEY] };
}
