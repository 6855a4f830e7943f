import { and, sql } from "drizzle-orm";
import { type Static, Type as t } from "@sinclair/typebox";
import { requestLogs } from "../db/schema/logs";
import { rateOf, usageColumns } from "./aggregates";
import { logConditions } from "./conditions";
import { LogFilterFields, type LogFilters } from "./filters";
import type { ReadDatabase } from "./worker-reader";

export const PromptVersionsQuery = t.Object(
  { ...LogFilterFields, prompt: t.String({ minLength: 1, description: "The prompt's name: its runs are the rows whose metadata `prompt` is it." }) },
  { additionalProperties: true },
);
export type PromptVersionsQuery = Static<typeof PromptVersionsQuery>;

export const PromptVersionUsage = t.Object({
  prompt: t.String(),
  versions: t.Array(
    t.Object({
      version: t.Integer(),
      requests: t.Integer(),
      errors: t.Integer(),
      error_rate: t.Number({ description: "Percent of the version's requests that failed." }),
      input_tokens: t.Integer(),
      output_tokens: t.Integer(),
      total_tokens: t.Integer(),
      total_cost: t.Number({ description: "USD." }),
      average_latency_ms: t.Number(),
      first_seen: t.String({ format: "date-time" }),
      last_seen: t.String({ format: "date-time" }),
    }),
    { description: "One per version run in the window, newest version first." },
  ),
});

const version = sql<string>`json_extract(${requestLogs.metadata}, '$.prompt_version')`;

/** A prompt's runs in the window, a row per version: what each costs, how fast and how often it fails. */
export async function promptVersionUsage(db: ReadDatabase, filters: LogFilters, prompt: string): Promise<Static<typeof PromptVersionUsage>> {
  const rows = await db
    .select({ version, ...usageColumns, firstSeen: sql<number>`min(${requestLogs.timestamp})`.mapWith(Number), lastSeen: sql<number>`max(${requestLogs.timestamp})`.mapWith(Number) })
    .from(requestLogs)
    .where(and(logConditions({ ...filters, metadata: { ...filters.metadata, prompt } }), sql`${version} IS NOT NULL`))
    .groupBy(version);
  const versions = rows
    .map((row) => ({
      version: Number(row.version),
      requests: row.requests,
      errors: row.errors,
      error_rate: rateOf(row.errors, row.requests),
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      total_tokens: row.totalTokens,
      total_cost: row.cost,
      average_latency_ms: row.averageLatency,
      first_seen: new Date(row.firstSeen).toISOString(),
      last_seen: new Date(row.lastSeen).toISOString(),
    }))
    .filter((row) => Number.isInteger(row.version));
  return { prompt, versions: versions.toSorted((a, b) => b.version - a.version) };
}
