import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { openDatabase } from "../../src/db/client";
import { errorHandler } from "../../src/http/error-handler";
import { createRequestLogs } from "../../src/logs";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, type LogFact, recordFacts, totalTokens } from "./seed-logs";

const HOUR = 3_600_000;
let gw: TestGateway;
let facts: LogFact[];
let anchor: Date;

beforeAll(async () => {
  gw = await startGateway();
  anchor = new Date();
  facts = generateFacts(120, anchor, 11);
  await recordFacts(gw.databaseUrl, facts);
});
afterAll(() => gw.close());

async function getJson<T>(path: string): Promise<T> {
  const response = await gw.admin(path);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** Floats summed in a different order differ in the last bits: compare to 9 places. */
function rounded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_, inner) => (typeof inner === "number" ? Math.round(inner * 1e9) / 1e9 : inner)));
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const rate = (part: number, whole: number) => (whole === 0 ? 0 : (part / whole) * 100);
const change = (current: number, previous: number) => (previous === 0 ? null : ((current - previous) / previous) * 100);
const inRange = (start: number, end: number) => (fact: LogFact) => fact.timestamp.getTime() >= start && fact.timestamp.getTime() <= end;
/** The 24 h before the request and the 24 h before that (rows sit minutes away from both edges). */
const lastDay = () => inRange(Date.now() - 24 * HOUR, Date.now());
const dayBefore = () => inRange(Date.now() - 48 * HOUR, Date.now() - 24 * HOUR - 1);

function nearestRank(latencies: number[], percentile: number): number | null {
  if (latencies.length === 0) return null;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.ceil((percentile / 100) * sorted.length) - 1]!;
}

function expectedStats(rows: LogFact[]) {
  const successes = rows.filter((fact) => fact.status === "success").length;
  const latencies = rows.map((fact) => fact.latencyMs);
  return {
    total_requests: rows.length,
    success_count: successes,
    error_count: rows.length - successes,
    success_rate: rate(successes, rows.length),
    input_tokens: sum(rows.map((fact) => fact.inputTokens)),
    output_tokens: sum(rows.map((fact) => fact.outputTokens)),
    cached_tokens: sum(rows.map((fact) => fact.cachedTokens)),
    reasoning_tokens: sum(rows.map((fact) => fact.reasoningTokens)),
    total_tokens: sum(rows.map(totalTokens)),
    total_cost: sum(rows.map((fact) => fact.cost ?? 0)),
    average_latency: rows.length ? sum(latencies) / rows.length : 0,
    latency_percentiles: { p50: nearestRank(latencies, 50), p90: nearestRank(latencies, 90), p95: nearestRank(latencies, 95), p99: nearestRank(latencies, 99) },
  };
}

describe("GET /api/logs/stats", () => {
  test("totals, success rate, tokens, cost and latency percentiles, compared with the previous period", async () => {
    const body = await getJson<Record<string, unknown>>("/api/logs/stats?period=24h");
    const current = expectedStats(facts.filter(lastDay()));
    // The previous period carries the compared totals, not percentiles.
    const { latency_percentiles: _, ...previous } = expectedStats(facts.filter(dayBefore()));
    expect(current.total_requests).toBeGreaterThan(40);
    expect(previous.total_requests).toBeGreaterThan(40);
    const compared = ["total_requests", "success_rate", "total_tokens", "total_cost", "average_latency"] as const;
    expect(rounded({ ...body, log_queue: undefined })).toEqual(
      rounded({
        ...current,
        has_previous_period: true,
        previous,
        change: Object.fromEntries(compared.map((field) => [field, change(current[field], previous[field])])),
        log_queue: undefined,
      }),
    );
    expect(body.log_queue).toEqual({ depth: 0, bytes: 0, capacity: expect.any(Number), dropped: 0, failed: 0, retries: 0, quarantined: 0 });
  });

  test("filters narrow both periods alike", async () => {
    const openai = (fact: LogFact) => fact.provider === "openai";
    const body = await getJson<{ total_requests: number; previous: { total_requests: number } }>("/api/logs/stats?period=24h&providers=openai");
    expect(body.total_requests).toBe(facts.filter((fact) => openai(fact) && lastDay()(fact)).length);
    expect(body.previous.total_requests).toBe(facts.filter((fact) => openai(fact) && dayBefore()(fact)).length);
  });

  test("the same answer when the queries run on the main connection's client, as against a libSQL server", async () => {
    const database = await openDatabase(gw.databaseUrl);
    const logs = createRequestLogs(database.db);
    const server = new Elysia().use(errorHandler).use(logs.routes).listen({ port: 0, hostname: "127.0.0.1" });
    try {
      const path = "/api/logs/stats?period=24h";
      const onClient = (await (await fetch(`http://127.0.0.1:${server.server!.port}${path}`)).json()) as Record<string, unknown>;
      const onThreads = await getJson<Record<string, unknown>>(path);
      expect(onClient.latency_percentiles).toEqual(expectedStats(facts.filter(lastDay())).latency_percentiles);
      expect(rounded({ ...onClient, log_queue: undefined })).toEqual(rounded({ ...onThreads, log_queue: undefined }));
    } finally {
      await server.stop(true);
      await logs.close();
      database.close();
    }
  });

  test("without a time range there is no previous period to compare with", async () => {
    const body = await getJson<Record<string, unknown>>("/api/logs/stats");
    expect(rounded(body)).toMatchObject(rounded({ ...expectedStats(facts), has_previous_period: false, previous: null, change: null }));
  });

  test("an empty selection has zero totals and no percentiles", async () => {
    const body = await getJson<Record<string, unknown>>("/api/logs/stats?models=no-such-model");
    expect(body).toMatchObject({ total_requests: 0, success_rate: 0, total_cost: 0, latency_percentiles: { p50: null, p90: null, p95: null, p99: null } });
  });
});

describe("GET /api/logs/histogram", () => {
  type Histogram = { buckets: Array<{ timestamp: string; count: number; success: number; error: number; total_tokens: number; total_cost: number }>; bucket_size_seconds: number };

  function expectedBuckets(start: number, end: number, sizeSeconds: number) {
    const size = sizeSeconds * 1000;
    const buckets = [];
    for (let bucket = Math.floor(start / size) * size; bucket <= end; bucket += size) {
      const rows = facts.filter(inRange(start, end)).filter((fact) => Math.floor(fact.timestamp.getTime() / size) * size === bucket);
      buckets.push({
        timestamp: new Date(bucket).toISOString(),
        count: rows.length,
        success: rows.filter((fact) => fact.status === "success").length,
        error: rows.filter((fact) => fact.status === "error").length,
        total_tokens: sum(rows.map(totalTokens)),
        total_cost: sum(rows.map((fact) => fact.cost ?? 0)),
      });
    }
    return buckets;
  }

  test.each([
    [30, 3600],
    [3, 600],
    [1.5, 60],
  ])("a %s h range is cut into buckets of %s s, empty ones included", async (hours, sizeSeconds) => {
    const end = anchor.getTime() - 5 * 60_000;
    const start = end - hours * HOUR;
    const body = await getJson<Histogram>(`/api/logs/histogram?start_time=${new Date(start).toISOString()}&end_time=${new Date(end).toISOString()}`);
    expect(body.bucket_size_seconds).toBe(sizeSeconds);
    const withoutLatency = body.buckets.map(({ timestamp, count, success, error, total_tokens, total_cost }) => ({ timestamp, count, success, error, total_tokens, total_cost }));
    expect(rounded(withoutLatency)).toEqual(rounded(expectedBuckets(start, end, sizeSeconds)));
    expect(sum(body.buckets.map((bucket) => bucket.count))).toBe(facts.filter(inRange(start, end)).length);
  });

  test("without a range the buckets span the matching logs", async () => {
    const body = await getJson<Histogram>("/api/logs/histogram?status=error");
    expect(body.bucket_size_seconds).toBe(3600);
    expect(sum(body.buckets.map((bucket) => bucket.count))).toBe(facts.filter((fact) => fact.status === "error").length);
  });
});

describe("GET /api/logs/rankings (spec 4.10)", () => {
  type Ranking = { provider: string; model: string; total_requests: number; trend: Record<string, unknown> } & Record<string, unknown>;

  function usage(rows: LogFact[]) {
    const errors = rows.filter((fact) => fact.status === "error").length;
    return {
      requests: rows.length,
      errors,
      tokens: sum(rows.map(totalTokens)),
      cost: sum(rows.map((fact) => fact.cost ?? 0)),
      latency: sum(rows.map((fact) => fact.latencyMs)) / rows.length,
      errorRate: rate(errors, rows.length),
    };
  }

  function expectedRankings(current: LogFact[], previous: LogFact[]) {
    const models = [...new Set(current.map((fact) => `${fact.provider}/${fact.model}`))];
    const of = (rows: LogFact[], key: string) => rows.filter((fact) => `${fact.provider}/${fact.model}` === key);
    return models
      .map((key) => {
        const rows = of(current, key);
        const now = usage(rows);
        const before = of(previous, key).length ? usage(of(previous, key)) : undefined;
        return {
          provider: rows[0]!.provider,
          model: rows[0]!.model,
          total_requests: now.requests,
          success_count: now.requests - now.errors,
          error_count: now.errors,
          success_rate: rate(now.requests - now.errors, now.requests),
          error_rate: now.errorRate,
          input_tokens: sum(rows.map((fact) => fact.inputTokens)),
          output_tokens: sum(rows.map((fact) => fact.outputTokens)),
          total_tokens: now.tokens,
          total_cost: now.cost,
          avg_latency: now.latency,
          trend: {
            has_previous_period: before !== undefined,
            requests_trend: before ? change(now.requests, before.requests) : null,
            tokens_trend: before ? change(now.tokens, before.tokens) : null,
            cost_trend: before ? change(now.cost, before.cost) : null,
            latency_trend: before ? change(now.latency, before.latency) : null,
            error_rate_trend: before ? change(now.errorRate, before.errorRate) : null,
          },
        };
      })
      .sort((a, b) => b.total_requests - a.total_requests || b.total_tokens - a.total_tokens || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
  }

  test("models ranked by usage, each with its trend against the previous period of the same length", async () => {
    const body = await getJson<{ rankings: Ranking[] }>("/api/logs/rankings?period=24h");
    const expected = expectedRankings(facts.filter(lastDay()), facts.filter(dayBefore()));
    expect(expected.length).toBeGreaterThan(2);
    expect(expected.some((row) => row.trend.requests_trend !== null && row.trend.requests_trend !== 0)).toBe(true);
    expect(rounded(body.rankings)).toEqual(rounded(expected));
  });

  test("the filters apply to both periods", async () => {
    const success = (fact: LogFact) => fact.status === "success" && fact.operation === "chat";
    const body = await getJson<{ rankings: Ranking[] }>("/api/logs/rankings?period=24h&status=success&objects=chat.completion");
    expect(rounded(body.rankings)).toEqual(rounded(expectedRankings(facts.filter(lastDay()).filter(success), facts.filter(dayBefore()).filter(success))));
  });

  test("an explicit range is compared with the range of equal length just before it", async () => {
    const end = anchor.getTime() - 10 * HOUR;
    const start = end - 6 * HOUR;
    const body = await getJson<{ rankings: Ranking[] }>(`/api/logs/rankings?start_time=${new Date(start).toISOString()}&end_time=${new Date(end).toISOString()}`);
    expect(rounded(body.rankings)).toEqual(rounded(expectedRankings(facts.filter(inRange(start, end)), facts.filter(inRange(start - 6 * HOUR, start - 1)))));
  });

  test("limit caps the ranked rows (default 100); all=true ignores it", async () => {
    const everyModel = expectedRankings(facts, []).map((row) => row.model);
    expect((await getJson<{ rankings: Ranking[] }>("/api/logs/rankings?limit=2")).rankings.map((row) => row.model)).toEqual(everyModel.slice(0, 2));
    expect((await getJson<{ rankings: Ranking[] }>("/api/logs/rankings?limit=1&all=true")).rankings.map((row) => row.model)).toEqual(everyModel);
    // Ignored means any value: one that would be refused alone is not looked at.
    expect((await getJson<{ rankings: Ranking[] }>("/api/logs/rankings?limit=0&all=true")).rankings.map((row) => row.model)).toEqual(everyModel);
    expect((await getJson<{ rankings: Ranking[] }>("/api/logs/rankings")).rankings.map((row) => row.model)).toEqual(everyModel);
  });

  test("group_by=virtual_key: a row per virtual key, with the name it was logged under and its trend; requests without a key left out", async () => {
    type KeyRanking = { virtual_key_id: string; virtual_key_name: string | null } & Record<string, unknown>;
    const body = await getJson<{ rankings: KeyRanking[] }>("/api/logs/rankings?period=24h&group_by=virtual_key");
    const current = facts.filter(lastDay());
    const previous = facts.filter(dayBefore());
    const keys = [...new Set(current.flatMap((fact) => (fact.virtualKeyId ? [fact.virtualKeyId] : [])))];
    expect(keys.length).toBeGreaterThan(1);
    expect(current.some((fact) => fact.virtualKeyId === undefined)).toBe(true);
    const expected = keys
      .map((key) => {
        // The key's rows as if one model had served them all: that model's ranking row is the key's usage.
        const ofKey = (rows: LogFact[]) => rows.filter((fact) => fact.virtualKeyId === key).map((fact) => ({ ...fact, provider: "any", model: "any" }));
        const { provider: _, model: __, ...usage } = expectedRankings(ofKey(current), ofKey(previous))[0]!;
        return { virtual_key_id: key, virtual_key_name: `name of ${key}`, ...usage };
      })
      .sort((a, b) => b.total_requests - a.total_requests || b.total_tokens - a.total_tokens || a.virtual_key_id.localeCompare(b.virtual_key_id));
    expect(rounded(body.rankings)).toEqual(rounded(expected));
    const limited = await getJson<{ rankings: KeyRanking[] }>("/api/logs/rankings?period=24h&group_by=virtual_key&limit=1");
    expect(limited.rankings.map((row) => row.virtual_key_id)).toEqual([expected[0]!.virtual_key_id]);
  });

  test("without a time range trends are absent", async () => {
    const body = await getJson<{ rankings: Ranking[] }>("/api/logs/rankings");
    expect(body.rankings.every((row) => row.trend.has_previous_period === false && row.trend.requests_trend === null)).toBe(true);
  });

  test.each([
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=100000000000", "limit"],
    ["all=yes", "all"],
    ["period=yesterday", "period"],
    ["group_by=team", "group_by"],
  ])("%s is a 400 naming the parameter", async (query, param) => {
    await expectGatewayError(await gw.admin(`/api/logs/rankings?${query}`), 400, { param });
  });
});

describe("GET /api/logs/series", () => {
  type Figures = { requests: number[]; errors: number[]; total_tokens: number[]; total_cost: number[]; cache_hits: number[]; time_to_first_token: Array<number | null> };
  type Series = { bucket_size_seconds: number; timestamps: string[]; groups: Array<{ key: string; label: string } & Figures> };

  /** Each group's figures per bucket, counted from the facts. */
  function expectedGroups(start: number, end: number, sizeSeconds: number, keyOf: (fact: LogFact) => string | undefined) {
    const size = sizeSeconds * 1000;
    const first = Math.floor(start / size) * size;
    const count = Math.floor((end - first) / size) + 1;
    const groups = new Map<string, Figures & { streamed: number[][] }>();
    for (const fact of facts.filter(inRange(start, end))) {
      const key = keyOf(fact);
      if (key === undefined) continue;
      const zeros = () => Array.from({ length: count }, () => 0);
      const group = groups.get(key) ?? { requests: zeros(), errors: zeros(), total_tokens: zeros(), total_cost: zeros(), cache_hits: zeros(), time_to_first_token: [], streamed: zeros().map(() => []) };
      const index = Math.floor((fact.timestamp.getTime() - first) / size);
      group.requests[index]! += 1;
      group.errors[index]! += fact.status === "error" ? 1 : 0;
      group.total_tokens[index]! += totalTokens(fact);
      group.total_cost[index]! += fact.cost ?? 0;
      group.cache_hits[index]! += fact.cacheHitType ? 1 : 0;
      if (fact.timeToFirstTokenMs !== undefined) group.streamed[index]!.push(fact.timeToFirstTokenMs);
      groups.set(key, group);
    }
    const average = (values: number[]) => (values.length ? sum(values) / values.length : null);
    return Object.fromEntries([...groups].map(([key, { streamed, ...figures }]) => [key, { ...figures, time_to_first_token: streamed.map(average) }]));
  }

  const window = () => {
    const end = anchor.getTime() - 5 * 60_000;
    return { start: end - 30 * HOUR, end };
  };

  test.each([
    ["model", (fact: LogFact) => fact.model],
    ["provider", (fact: LogFact) => fact.provider],
    ["virtual_key", (fact: LogFact) => fact.virtualKeyId],
    ["team", (fact: LogFact) => fact.teamId],
    ["customer", (fact: LogFact) => fact.customerId],
    ["error_type", (fact: LogFact) => fact.errorType],
    ["metadata.env", (fact: LogFact) => fact.metadata.env],
    ["metadata.feature", (fact: LogFact) => fact.metadata.feature],
  ] as const)("group_by=%s: a series per value, each bucket's figures (cache hits and time to first token too) those of its logs, busiest first", async (groupBy, keyOf) => {
    const { start, end } = window();
    const body = await getJson<Series>(`/api/logs/series?group_by=${groupBy}&start_time=${new Date(start).toISOString()}&end_time=${new Date(end).toISOString()}`);
    expect(body.bucket_size_seconds).toBe(3600);
    const expected = expectedGroups(start, end, 3600, keyOf);
    expect(body.groups.length).toBeGreaterThan(0);
    expect(rounded(Object.fromEntries(body.groups.map(({ key, label: _, ...figures }) => [key, figures])))).toEqual(rounded(expected));
    const totals = body.groups.map((group) => sum(group.requests));
    expect(totals).toEqual(totals.toSorted((a, b) => b - a));
    expect(body.groups.every((group) => group.requests.length === body.timestamps.length)).toBe(true);
  });

  test("the filters narrow the series as they narrow the list", async () => {
    const { start, end } = window();
    const range = `start_time=${new Date(start).toISOString()}&end_time=${new Date(end).toISOString()}`;
    const body = await getJson<Series>(`/api/logs/series?group_by=provider&status=error&${range}`);
    const listed = await getJson<{ total: number }>(`/api/logs?status=error&limit=1&${range}`);
    expect(sum(body.groups.map((group) => sum(group.requests)))).toBe(listed.total);
  });

  test("a metadata key no request carried has no series", async () => {
    const body = await getJson<Series>("/api/logs/series?group_by=metadata.nobody&period=7d");
    expect(body.groups).toEqual([]);
  });

  test.each([
    ["group_by=routing_rule", "group_by"],
    ["group_by=metadata.", "group_by"],
    [`group_by=${encodeURIComponent('metadata.a"b')}`, "group_by"],
    ["group_by=metadata.$.x[0]", "group_by"],
    ["period=yesterday", "period"],
  ])("%s is a 400 naming the parameter", async (query, param) => {
    await expectGatewayError(await gw.admin(`/api/logs/series?${query}`), 400, { param });
  });
});

describe("GET /api/logs/metadata-keys", () => {
  test("the keys the latest requests carried, sorted, once each", async () => {
    const expected = [...new Set(facts.flatMap((fact) => Object.keys(fact.metadata)))].sort();
    expect(expected).toEqual(["env", "feature"]);
    expect(await getJson<{ keys: string[] }>("/api/logs/metadata-keys")).toEqual({ keys: expected });
  });
});
