import { and, eq } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogs } from "../db/schema/logs";
import { badRequest } from "../http/errors";
import { rateOf, type Usage, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import { byValueOf, groupHoursOf, narrowingOf } from "./group-hours";
import { answeredByHours, BY_MODEL, hourlyUsage, sumAcrossHours, USAGE_SUMS, usageOf } from "./hourly";
import { keyNames } from "./key-names";
import { LogFilterFields, type LogFilters, POSITIVE_INTEGER } from "./filters";
import { previousWindow, type TimeWindow } from "./time-window";
import { percentChange } from "./trend";
import type { ReadDatabase } from "./worker-reader";

const DEFAULT_RANKING_LIMIT = 100;

/** GET /api/logs/rankings (spec 4.10): the filters plus `limit` and `all`. */
export const RankingsQuery = t.Object(
  {
    ...LogFilterFields,
    // Checked by readRankingOptions: ignored when all=true, whatever it is.
    limit: t.Optional(t.String({ description: `an integer >= 1, default ${DEFAULT_RANKING_LIMIT}; ignored when all=true` })),
    all: t.Optional(t.Boolean()),
    group_by: t.Optional(t.String({ pattern: "^(model|virtual_key)$", description: "model (default): a row per provider and model; virtual_key: a row per virtual key" })),
  },
  { additionalProperties: true },
);
export type RankingsQuery = Static<typeof RankingsQuery>;

type ModelUsage = Usage & { provider: string; model: string };
type ModelPair = { provider: string; model: string };

/**
 * With filters the hourly table cannot answer: one covering-index range scan per model instead
 * of a GROUP BY (SQLite sorts every row of the window to group them, which costs several times
 * more than reading each model's slice of request_logs_model_usage_idx).
 */
async function usageOfModel(db: ReadDatabase, filters: LogFilters, window: TimeWindow, { provider, model }: ModelPair): Promise<ModelUsage> {
  const where = and(eq(requestLogs.model, model), eq(requestLogs.provider, provider), logConditions(filters, window));
  const [usage] = (await db.select(usageColumns).from(requestLogs).where(where)) as Usage[];
  return { provider, model, ...usage! };
}

async function usageByModel(db: ReadDatabase, filters: LogFilters, window: TimeWindow): Promise<ModelUsage[]> {
  const pairs = await db.selectDistinct({ provider: requestLogs.provider, model: requestLogs.model }).from(requestLogs).where(logConditions(filters, window));
  return Promise.all(pairs.map((pair) => usageOfModel(db, filters, window, pair)));
}

const pairKey = ({ provider, model }: ModelPair) => `${provider}\n${model}`;

/** Each shown model's usage in the window before, from whole hours where the filters allow. */
async function previousUsage(db: ReadDatabase, filters: LogFilters, window: TimeWindow, shown: readonly ModelUsage[]): Promise<Array<ModelUsage | undefined>> {
  if (!answeredByHours(filters)) return Promise.all(shown.map((row) => usageOfModel(db, filters, window, row)));
  const byPair = new Map((await hourlyUsage(db, filters, window, BY_MODEL)).map((row) => [pairKey(row), row]));
  return shown.map((row) => byPair.get(pairKey(row)));
}

async function rankedUsage(db: ReadDatabase, filters: LogFilters, window: TimeWindow): Promise<ModelUsage[]> {
  const usages = answeredByHours(filters) ? await hourlyUsage(db, filters, window, BY_MODEL) : await usageByModel(db, filters, window);
  return usages.sort((a, b) => b.requests - a.requests || b.totalTokens - a.totalTokens || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
}

function trendOf(current: Usage, previous: Usage | undefined) {
  return {
    has_previous_period: previous !== undefined,
    requests_trend: percentChange(current.requests, previous?.requests),
    tokens_trend: percentChange(current.totalTokens, previous?.totalTokens),
    cost_trend: percentChange(current.cost, previous?.cost),
    latency_trend: percentChange(current.averageLatency, previous?.averageLatency),
    error_rate_trend: percentChange(rateOf(current.errors, current.requests), previous && rateOf(previous.errors, previous.requests)),
  };
}

function usageView(current: Usage, previous: Usage | undefined) {
  return {
    total_requests: current.requests,
    success_count: current.successes,
    error_count: current.errors,
    success_rate: rateOf(current.successes, current.requests),
    error_rate: rateOf(current.errors, current.requests),
    input_tokens: current.inputTokens,
    output_tokens: current.outputTokens,
    total_tokens: current.totalTokens,
    total_cost: current.cost,
    avg_latency: current.averageLatency,
    trend: trendOf(current, previous),
  };
}

/**
 * Models ranked by requests (then tokens), each with its change against the window of the same
 * length just before; `limit` is ignored when `all` is set. `group_by=virtual_key`: virtualKeyRankings.
 */
export async function modelRankings(db: ReadDatabase, filters: LogFilters, options: { limit: number; all: boolean }, now: Date) {
  const ranked = await rankedUsage(db, filters, filters.window);
  const shown = options.all ? ranked : ranked.slice(0, options.limit);
  const previousRange = previousWindow(filters.window, now);
  const previous = previousRange ? await previousUsage(db, filters, previousRange, shown) : [];
  return { rankings: shown.map((row, index) => ({ provider: row.provider, model: row.model, ...usageView(row, previous[index]?.requests ? previous[index] : undefined) })) };
}

type KeyUsage = Usage & { virtualKeyId: string };

/** Usage per virtual key: whole hours from request_log_group_hours where the filters allow, the rest from the logs. */
async function usageByVirtualKey(db: ReadDatabase, filters: LogFilters, window: TimeWindow): Promise<KeyUsage[]> {
  const narrowing = narrowingOf(filters);
  const hourly = narrowing !== undefined && (narrowing.grouping ?? "virtual_key") === "virtual_key";
  const source = hourly ? groupHoursOf(filters, "virtual_key", narrowing?.values) : undefined;
  const groups = await sumAcrossHours(db, filters, window, source, byValueOf("virtual_key"), USAGE_SUMS);
  return groups.map(({ key, sums }) => ({ virtualKeyId: key.value, ...usageOf(sums) }));
}

/**
 * Virtual keys ranked by requests (then tokens), each with its change against the window just
 * before and the name logged with its latest request; requests without a key are left out.
 */
export async function virtualKeyRankings(db: ReadDatabase, filters: LogFilters, options: { limit: number; all: boolean }, now: Date) {
  const ranked = (await usageByVirtualKey(db, filters, filters.window)).sort((a, b) => b.requests - a.requests || b.totalTokens - a.totalTokens || a.virtualKeyId.localeCompare(b.virtualKeyId));
  const shown = options.all ? ranked : ranked.slice(0, options.limit);
  const previousRange = previousWindow(filters.window, now);
  const [previous, names] = await Promise.all([
    previousRange ? usageByVirtualKey(db, filters, previousRange) : [],
    keyNames(db, filters, filters.window, shown.map((row) => row.virtualKeyId)),
  ]);
  const previousOf = new Map(previous.map((row) => [row.virtualKeyId, row]));
  return { rankings: shown.map((row) => ({ virtual_key_id: row.virtualKeyId, virtual_key_name: names.get(row.virtualKeyId) ?? null, ...usageView(row, previousOf.get(row.virtualKeyId)) })) };
}

const POSITIVE_LIMIT = new RegExp(POSITIVE_INTEGER.pattern!);

export function readRankingOptions(query: RankingsQuery) {
  const all = query.all ?? false;
  const groupBy = query.group_by === "virtual_key" ? "virtual_key" : "model";
  if (all || query.limit === undefined) return { limit: DEFAULT_RANKING_LIMIT, all, groupBy };
  if (!POSITIVE_LIMIT.test(query.limit)) throw badRequest("query field 'limit': expected an integer >= 1 (below a billion)", "limit");
  return { limit: Number(query.limit), all, groupBy };
}
