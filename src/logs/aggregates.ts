import { type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { requestLogs } from "../db/schema/logs";

/** The sum of `expression`, 0 over no rows. */
export const total = (expression: SQL | SQLiteColumn) => sql<number>`coalesce(sum(${expression}), 0)`.mapWith(Number);

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

export const NO_USAGE = Object.fromEntries(Object.keys(usageColumns).map((name) => [name, 0])) as Usage;

/** Percentage of requests in `part`, 0 when there were none. */
export const rateOf = (part: number, requests: number) => (requests === 0 ? 0 : (part / requests) * 100);
