import { type SQL, sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";

const total = (expression: SQL) => sql<number>`coalesce(sum(${expression}), 0)`.mapWith(Number);

/** Usage totals shared by stats, histogram buckets and ranking rows. */
export const usageColumns = {
  requests: sql<number>`count(*)`.mapWith(Number),
  successes: total(sql`${requestLogs.status} = 'success'`),
  errors: total(sql`${requestLogs.status} = 'error'`),
  inputTokens: total(sql`${requestLogs.inputTokens}`),
  outputTokens: total(sql`${requestLogs.outputTokens}`),
  cachedTokens: total(sql`${requestLogs.cachedTokens}`),
  reasoningTokens: total(sql`${requestLogs.reasoningTokens}`),
  totalTokens: total(sql`${requestLogs.totalTokens}`),
  cost: total(sql`${requestLogs.cost}`),
  averageLatency: sql<number>`coalesce(avg(${requestLogs.latencyMs}), 0)`.mapWith(Number),
};

export type Usage = { [Name in keyof typeof usageColumns]: number };

export const NO_USAGE: Usage = { requests: 0, successes: 0, errors: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0, totalTokens: 0, cost: 0, averageLatency: 0 };

/** Percentage of requests in `part`, 0 when there were none. */
export const rateOf = (part: number, requests: number) => (requests === 0 ? 0 : (part / requests) * 100);
