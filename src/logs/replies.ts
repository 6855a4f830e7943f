import { Type as t } from "@sinclair/typebox";
import { Timestamp } from "../http/replies";

/** What the management API answers about request logs (search.ts `logView`). */

const Text = t.Union([t.String(), t.Null()]);
const Figure = t.Union([t.Number(), t.Null()]);

const Attempt = t.Object(
  { provider: t.String(), model: t.String(), key: t.Optional(t.String({ description: "The provider key's id." })), status: t.Optional(t.Integer()), error_type: t.Optional(t.String()), is_fallback: t.Boolean() },
  { description: "One provider call: fallbacks and retries each add one." },
);

const GuardrailVerdict = t.Object(
  { guardrail: t.String(), check: t.String(), stage: t.Union([t.Literal("input"), t.Literal("output")]), action: t.Union([t.Literal("block"), t.Literal("redact"), t.Literal("log")]), matches: t.Integer() },
  { description: "What a guardrail found and did; never the matched text." },
);

const logFields = {
  id: t.String(),
  parent_request_id: Text,
  timestamp: Timestamp,
  object: t.String({ description: "What was called: `chat.completion`, `embedding`, `response`, ..." }),
  provider: t.String(),
  model: t.String(),
  alias: Text,
  selected_key_id: Text,
  virtual_key_id: Text,
  virtual_key_name: Text,
  team_id: Text,
  customer_id: Text,
  user_id: Text,
  business_unit_id: Text,
  project_id: Text,
  routing_rule_id: Text,
  routing_rule_name: Text,
  routing_engine_used: Text,
  status: t.Union([t.Literal("processing"), t.Literal("success"), t.Literal("error")]),
  status_code: Figure,
  error_type: Text,
  error_message: Text,
  stop_reason: Text,
  tool_call_names: t.Array(t.String()),
  cache_hit_type: Text,
  guardrails: t.Array(GuardrailVerdict, { description: "What each guardrail found and did; never the matched text." }),
  input_tokens: t.Integer(),
  output_tokens: t.Integer(),
  cached_tokens: t.Integer(),
  reasoning_tokens: t.Integer(),
  total_tokens: t.Integer(),
  cost: t.Union([t.Number(), t.Null()], { description: "USD; null when pricing did not know the model." }),
  latency: t.Number({ description: "Milliseconds." }),
  time_to_first_token: Figure,
  stream: t.Boolean(),
  session_id: Text,
  conversation_id: t.Union([t.String(), t.Null()], { description: "The conversation the request belongs to, when conversation affinity or a virtual key's session budgets named one." }),
  complexity_tier: t.Union([t.String(), t.Null()], { description: "The complexity tier a routing rule read; null when no rule read it." }),
  complexity_score: t.Union([t.Number(), t.Null()], { description: "The complexity score (0 to 1) the tier was read from." }),
  region: Text,
  internal_caller: t.Union([t.String(), t.Null()], { description: "What in the gateway made the call (`warp`, a guardrail, ...); null for a client's request." }),
  metadata: t.Record(t.String(), t.String()),
  attempts: t.Array(Attempt),
};

/** One schema for both: Elysia's types of a list and a read are those of `logView`, which may carry the content. */
export const LogEntry = t.Object(
  {
    ...logFields,
    request_content: t.Optional(t.Unknown({ description: "GET /api/logs/{id} only: the request body with secrets removed; null when content logging is off." })),
    response_content: t.Optional(t.Union([t.String(), t.Null()], { description: "GET /api/logs/{id} only: the response text; null when content logging is off." })),
  },
  { title: "LogEntry", description: "A request's log row; its content only when read alone." },
);
export const LogPage = t.Object({
  logs: t.Array(LogEntry),
  count: t.Integer(),
  total: t.Union([t.Integer(), t.Null()], { description: "Rows matching, all pages; null when `with_total=false`." }),
  limit: t.Integer(),
  offset: t.Integer(),
  sort_by: t.String(),
  order: t.Union([t.Literal("asc"), t.Literal("desc")]),
}, { title: "LogPage" });

const totals = {
  total_requests: t.Integer(),
  success_count: t.Integer(),
  error_count: t.Integer(),
  success_rate: t.Number({ description: "Percent of requests; 0 when there were none." }),
  input_tokens: t.Integer(),
  output_tokens: t.Integer(),
};
const Change = t.Union([t.Number(), t.Null()], { description: "Percent against the window before; null when that had none." });

const PeriodTotals = t.Object({
  ...totals,
  cached_tokens: t.Integer(),
  reasoning_tokens: t.Integer(),
  total_tokens: t.Integer(),
  total_cost: t.Number({ description: "USD." }),
  average_latency: t.Number({ description: "Milliseconds." }),
});
const Percentile = t.Union([t.Number(), t.Null()]);

export const LogStats = t.Object(
  {
    ...PeriodTotals.properties,
    latency_percentiles: t.Object({ p50: Percentile, p90: Percentile, p95: Percentile, p99: Percentile }, { description: "Milliseconds; null with no requests." }),
    has_previous_period: t.Boolean(),
    previous: t.Union([PeriodTotals, t.Null()], { description: "The window of equal length just before; null when the window has no start." }),
    change: t.Union([t.Object({ total_requests: Change, success_rate: Change, total_tokens: Change, total_cost: Change, average_latency: Change }), t.Null()]),
    log_queue: t.Object(
      {
        depth: t.Integer(),
        bytes: t.Integer(),
        capacity: t.Integer(),
        dropped: t.Integer(),
        failed: t.Integer(),
        retries: t.Integer(),
        quarantined: t.Integer({ description: "Rows of the crash journal the database refused, set aside." }),
      },
      { description: "The log writer's queue on this node: rows waiting, dropped, lost and set aside." },
    ),
  },
  { title: "LogStats", description: "Totals and latency percentiles of the filtered window, against the window before." },
);

export const LogHistogram = t.Object({
  buckets: t.Array(
    t.Object({ timestamp: Timestamp, count: t.Integer(), success: t.Integer(), error: t.Integer(), total_tokens: t.Integer(), total_cost: t.Number(), average_latency: t.Number() }),
    { description: "Every bucket of the range, zero when empty." },
  ),
  bucket_size_seconds: t.Integer(),
}, { title: "LogHistogram" });

const rankingFields = {
  ...totals,
  error_rate: t.Number({ description: "Percent of requests." }),
  total_tokens: t.Integer(),
  total_cost: t.Number(),
  avg_latency: t.Number(),
  trend: t.Object({
    has_previous_period: t.Boolean(),
    requests_trend: Change,
    tokens_trend: Change,
    cost_trend: Change,
    latency_trend: Change,
    error_rate_trend: Change,
  }),
};

/** A row per provider and model (`group_by=model`, the default) or per virtual key, most requests first. */
export const LogRankings = t.Union([
  t.Object({ rankings: t.Array(t.Object({ provider: t.String(), model: t.String(), ...rankingFields })) }, { title: "ModelRankings" }),
  t.Object({ rankings: t.Array(t.Object({ virtual_key_id: t.String(), virtual_key_name: t.Union([t.String(), t.Null()]), ...rankingFields })) }, { title: "VirtualKeyRankings" }),
], { title: "LogRankings" });
