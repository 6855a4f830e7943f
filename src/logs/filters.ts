import { type Static, Type as t } from "@sinclair/typebox";
import { PERIOD_PATTERN, resolveWindow, type TimeWindow } from "./time-window";
import { commaList } from "../http/comma-list";
import { Timestamp } from "../http/timestamps";

/** Query parameters that take a comma-separated list, each matching rows whose field is any of the values. */
export const LIST_FILTERS = [
  "providers",
  "models",
  "aliases",
  "status",
  "objects",
  "selected_key_ids",
  "conversation_ids",
  "virtual_key_ids",
  "team_ids",
  "customer_ids",
  "user_ids",
  "business_unit_ids",
  "project_ids",
  "routing_rule_ids",
  "routing_engine_used",
  "stop_reasons",
  "tool_call_names",
  "cache_hit_types",
  "guardrails",
  "guardrail_actions",
  "regions",
  "status_codes",
  "error_types",
] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

const STATUS = "(processing|success|error)";

// Numbers are matched as text: Elysia loses the field name when a coerced number breaks a bound,
// and every bad parameter must come back as a 400 that names it.
export const NON_NEGATIVE_NUMBER = t.String({ pattern: "^(\\d+(\\.\\d*)?|\\.\\d+)$", description: "a number >= 0" });
export const NON_NEGATIVE_INTEGER = t.String({ pattern: "^0*\\d{1,9}$", description: "an integer >= 0" });
export const POSITIVE_INTEGER = t.String({ pattern: "^0*[1-9]\\d{0,8}$", description: "an integer >= 1" });

const optionalText = () => t.Optional(t.String());
const listFields = Object.fromEntries(LIST_FILTERS.map((name) => [name, optionalText()])) as { [Name in ListFilter]: ReturnType<typeof optionalText> };

/** The filters every /api/logs read accepts (spec 4.10), plus `metadata_<key>` for any key. */
export const LogFilterFields = {
  ...listFields,
  status: t.Optional(t.String({ pattern: `^\\s*${STATUS}\\s*(,\\s*${STATUS}\\s*)*$`, description: "processing, success, error" })),
  start_time: t.Optional(Timestamp()),
  end_time: t.Optional(Timestamp()),
  period: t.Optional(t.String({ pattern: PERIOD_PATTERN, description: "relative period such as 1h, 24h, 7d" })),
  min_latency: t.Optional(NON_NEGATIVE_NUMBER),
  max_latency: t.Optional(NON_NEGATIVE_NUMBER),
  min_cost: t.Optional(NON_NEGATIVE_NUMBER),
  max_cost: t.Optional(NON_NEGATIVE_NUMBER),
  min_tokens: t.Optional(NON_NEGATIVE_INTEGER),
  max_tokens: t.Optional(NON_NEGATIVE_INTEGER),
  missing_cost_only: t.Optional(t.Boolean()),
  parent_request_id: t.Optional(t.String()),
  session_id: t.Optional(t.String()),
  content_search: t.Optional(t.String()),
  request_id: t.Optional(t.String()),
  roots_only: t.Optional(t.Boolean()),
  origin: t.Optional(t.Union([t.Literal("client"), t.Literal("gateway"), t.Literal("all")], { description: "client traffic (the default), the gateway's own calls (Warp, LLM guardrails), or all" })),
};
export const LogFilterQuery = t.Object(LogFilterFields, { additionalProperties: true });
export type LogFilterQuery = Static<typeof LogFilterQuery>;

export type LogOrigin = "client" | "gateway" | "all";

export interface Bounds {
  min?: number;
  max?: number;
}

export interface LogFilters {
  lists: Partial<Record<ListFilter, string[]>>;
  /** Empty when `request_id` is given: an exact lookup ignores the time range. */
  window: TimeWindow;
  latency: Bounds;
  cost: Bounds;
  tokens: Bounds;
  missingCostOnly: boolean;
  parentRequestId?: string;
  sessionId?: string;
  contentSearch?: string;
  requestId?: string;
  /** Never set together with `requestId`, so a fallback child can be looked up by its id. */
  rootsOnly: boolean;
  metadata: Record<string, string>;
  /** Client traffic, the gateway's own calls (`internal_caller` set), or both; a lookup by request id reads both. */
  origin: LogOrigin;
  /** Not from the query: callers in the gateway (the dashboard agent) leave out logs carrying any of these metadata keys. */
  withoutMetadataKeys?: readonly string[];
}

const METADATA_PREFIX = "metadata_";

const numberOrUndefined = (raw: string | undefined) => (raw === undefined ? undefined : Number(raw));
const nonBlank = (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined);

function metadataFilters(query: Record<string, unknown>): Record<string, string> {
  const entries = Object.entries(query).filter(([name, value]) => name.startsWith(METADATA_PREFIX) && name.length > METADATA_PREFIX.length && typeof value === "string");
  return Object.fromEntries(entries.map(([name, value]) => [name.slice(METADATA_PREFIX.length), value as string]));
}

/** Turns validated query parameters into filters; `now` anchors `period`. */
export function readLogFilters(query: LogFilterQuery, now: Date): LogFilters {
  const lists: LogFilters["lists"] = {};
  for (const name of LIST_FILTERS) {
    const values = commaList(query[name]);
    if (values) lists[name] = values;
  }
  const requestId = nonBlank(query.request_id);
  return {
    lists,
    window: requestId ? {} : resolveWindow(query, now),
    latency: { min: numberOrUndefined(query.min_latency), max: numberOrUndefined(query.max_latency) },
    cost: { min: numberOrUndefined(query.min_cost), max: numberOrUndefined(query.max_cost) },
    tokens: { min: numberOrUndefined(query.min_tokens), max: numberOrUndefined(query.max_tokens) },
    missingCostOnly: query.missing_cost_only ?? false,
    parentRequestId: nonBlank(query.parent_request_id),
    sessionId: nonBlank(query.session_id),
    contentSearch: nonBlank(query.content_search),
    requestId,
    rootsOnly: !requestId && (query.roots_only ?? false),
    metadata: metadataFilters(query),
    origin: query.origin ?? (requestId ? "all" : "client"),
  };
}
