import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient, type InArgs } from "@libsql/client";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import * as schema from "../../src/db/schema";
import { readLogFilters } from "../../src/logs/filters";
import { logSeries } from "../../src/logs/series";
import type { ReadDatabase } from "../../src/logs/worker-reader";
import { startGateway, type TestGateway } from "../support/gateway";
import { UNDO_SINCE_0005, undoMigrationsFrom } from "../support/migrations";
import { generateFacts, type LogFact, openRequestLogs, recordFacts } from "./seed-logs";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// Stats, rankings, histograms and series read whole hours from request_log_hours when only the
// window, providers, models and statuses filter them, and from request_log_group_hours when they
// are grouped by, or narrowed to, a virtual key, team, customer, error type or metadata value.
// `min_latency=0` matches every log but no hour, so the same question with it is answered from the
// logs alone: the two answers must agree.
const FROM_LOGS_ONLY = "min_latency=0";

/** Floats summed in a different order differ in the last bits: compare to 9 places. */
function rounded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_, inner) => (typeof inner === "number" ? Math.round(inner * 1e9) / 1e9 : inner)));
}

async function answer(gw: TestGateway, path: string): Promise<unknown> {
  const response = await gw.admin(path);
  expect(response.status).toBe(200);
  const { log_queue: _, ...body } = (await response.json()) as Record<string, unknown>;
  return rounded(body);
}

/** Odd minutes and seconds, so every window has partial hours at both edges. */
function questions(anchor: Date): string[] {
  const at = (offsetMs: number) => new Date(anchor.getTime() + offsetMs).toISOString();
  const range = `start_time=${at(-6 * DAY - 17 * 60_000 - 13_000)}&end_time=${at(-29 * 60_000 - 7_000)}`;
  return [
    `/api/logs/stats?${range}`,
    `/api/logs/stats?${range}&providers=openai&status=error`,
    "/api/logs/stats",
    `/api/logs/rankings?${range}`,
    `/api/logs/rankings?${range}&models=gpt-4o,claude-sonnet-4`,
    `/api/logs/histogram?${range}`,
    `/api/logs/histogram?start_time=${at(-40 * HOUR - 11 * 60_000)}&end_time=${at(-3 * 60_000)}`,
    `/api/logs/series?${range}&group_by=model`,
    `/api/logs/series?${range}&group_by=virtual_key`,
    `/api/logs/series?${range}&group_by=team&status=error`,
    `/api/logs/series?${range}&group_by=metadata.feature`,
    `/api/logs/series?${range}&group_by=metadata.gw_stream_resumes`,
    `/api/logs/series?start_time=${at(-40 * HOUR - 11 * 60_000)}&end_time=${at(-3 * 60_000)}&group_by=metadata.env`,
    `/api/logs/rankings?${range}&group_by=virtual_key`,
    `/api/logs/rankings?${range}&group_by=virtual_key&virtual_key_ids=vk-a,vk-c`,
    `/api/logs/stats?${range}&metadata_env=prod`,
  ];
}

/**
 * Runs `read` on a database that notes, for each statement reading request_logs, the span of time
 * its bounds cover (the latest bound less the earliest): where the logs themselves are read.
 * A lookup of one virtual key's latest row is no such read.
 */
async function timeSpansRead(databaseUrl: string, read: (db: ReadDatabase) => Promise<unknown>): Promise<number[]> {
  const client = createClient({ url: databaseUrl });
  const spans: number[] = [];
  const run = async (query: string, params: unknown[], method: string) => {
    const times = params.filter((param): param is number => typeof param === "number" && param > 1e12);
    if (query.includes('from "request_logs"') && !query.includes("json_each")) spans.push(times.length ? Math.max(...times) - Math.min(...times) : Infinity);
    const rows = (await client.execute({ sql: query, args: params as InArgs })).rows.map((row) => Array.from(row));
    return { rows: (method === "get" ? rows[0] : rows) as unknown[] };
  };
  try {
    await read(drizzle(run, { schema }) as unknown as ReadDatabase);
  } finally {
    client.close();
  }
  return spans;
}

async function expectHoursAgreeWithLogs(gw: TestGateway, anchor: Date) {
  const answers = questions(anchor).map(async (path) => {
    const [fromHours, fromLogs] = await Promise.all([answer(gw, path), answer(gw, `${path}${path.includes("?") ? "&" : "?"}${FROM_LOGS_ONLY}`)]);
    return { path, fromHours, fromLogs };
  });
  for (const { path, fromHours, fromLogs } of await Promise.all(answers)) expect({ path, answer: fromHours }).toEqual({ path, answer: fromLogs });
}

describe("aggregates over whole hours", () => {
  let gw: TestGateway;
  let facts: LogFact[];
  const anchor = new Date("2026-05-20T10:37:00.000Z");
  beforeAll(async () => {
    gw = await startGateway();
    facts = generateFacts(900, anchor, 5);
    await recordFacts(gw.databaseUrl, facts);
  });
  afterAll(() => gw.close());

  test("agree with the logs they summarise", async () => {
    const stats = (await answer(gw, `/api/logs/stats?start_time=${new Date(anchor.getTime() - 6 * DAY).toISOString()}`)) as { total_requests: number };
    expect(stats.total_requests).toBeGreaterThan(300);
    await expectHoursAgreeWithLogs(gw, anchor);
  });

  // As a resumed stream notes its resumes on its log row once the row is written.
  // Over a million logs, reading every log of a 30-day window took seconds.
  test.each(["model", "virtual_key", "team", "error_type", "metadata.feature"] as const)("a series by %s reads the logs only in the partial hours at its window's edges", async (group) => {
    const window = { start_time: new Date(anchor.getTime() - 6 * DAY - 17 * 60_000).toISOString(), end_time: new Date(anchor.getTime() - 29 * 60_000).toISOString() };
    const spans = await timeSpansRead(gw.databaseUrl, (db) => logSeries(db, readLogFilters(window, anchor), group, anchor));
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.filter((span) => span >= HOUR)).toEqual([]);
  });

  test("count a metadata value noted on logs after they were written", async () => {
    const noted = facts.slice(40, 45).map((fact) => fact.id);
    const client = createClient({ url: gw.databaseUrl });
    try {
      await client.execute({ sql: "UPDATE request_logs SET metadata = json_set(metadata, '$.gw_stream_resumes', '2') WHERE id IN (SELECT value FROM json_each(?))", args: [JSON.stringify(noted)] });
    } finally {
      client.close();
    }
    const stats = (await answer(gw, `/api/logs/stats?start_time=${new Date(anchor.getTime() - 6 * DAY).toISOString()}&metadata_gw_stream_resumes=2`)) as { total_requests: number };
    expect(stats.total_requests).toBe(noted.length);
    await expectHoursAgreeWithLogs(gw, anchor);
  });

  test("still agree after logs are deleted by id", async () => {
    const doomed = facts.filter((_, index) => index % 3 === 0).map((fact) => fact.id);
    expect((await gw.admin("/api/logs", { method: "DELETE", json: { ids: doomed } })).status).toBe(200);
    await expectHoursAgreeWithLogs(gw, anchor);
  });

  test("still agree after a retention sweep", async () => {
    let swept!: (deleted: number) => void;
    const sweep = new Promise<number>((resolve) => (swept = resolve));
    const opened = await openRequestLogs(gw.databaseUrl, { retentionDays: () => 4, clock: () => anchor, onRetentionSweep: (deleted) => swept(deleted) });
    try {
      expect(await sweep).toBeGreaterThan(0);
    } finally {
      await opened.close();
    }
    await expectHoursAgreeWithLogs(gw, anchor);
  });
});

test("logs recorded before the hourly table existed are counted once the gateway upgrades", async () => {
  const anchor = new Date("2026-04-02T08:21:00.000Z");
  const gw = await startGateway();
  await recordFacts(gw.databaseUrl, generateFacts(300, anchor, 9));
  await gw.stop();
  // Back to the schema before migration 0002: no hourly table, no actor leases (0003), no
  // reached models of provider keys (0004), no latency histogram (0005), no stored responses
  // (0006, 0007), no background responses (0008), no actor signals (0009), no provider object
  // keys (0010), no MCP log change counter (0011), no gateway-kept conversations (0012), no held
  // video charges (0013, with their polls: 0014), no MCP log notifications (0015), no actor
  // video charges (0013, with their polls: 0014), no MCP log notifications (0015), no actor
  // lifecycle records and webhook endpoint lifecycles (0016), no reach of private addresses (0017),
  // no guardrails (0018), no regions on log rows nor claimed quota (0019), no single sign-on
  // identities (0020), no OAuth connections of MCP clients (0021), and none of these migrations recorded.
  await undoMigrationsFrom(gw.databaseUrl, "0002_logs_hourly", [...UNDO_SINCE_0005, "DROP TABLE request_log_hours", "ALTER TABLE actor_snapshots DROP COLUMN owner", "ALTER TABLE actor_snapshots DROP COLUMN lease_until", "ALTER TABLE provider_keys DROP COLUMN reached_models"]);
  const upgraded = await gw.restart();
  try {
    await expectHoursAgreeWithLogs(upgraded, anchor);
  } finally {
    await upgraded.close();
  }
  // Two starts of the gateway and every migration since 0002 run again.
}, 15_000);
