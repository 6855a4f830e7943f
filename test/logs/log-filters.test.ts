import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { desc, sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/client";
import { requestLogs } from "../../src/db/schema/logs";
import { logConditions } from "../../src/logs/conditions";
import { readLogFilters } from "../../src/logs/filters";
import { pageOfSeqs, readPage } from "../../src/logs/search";
import type { ReadDatabase } from "../../src/logs/worker-reader";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { contentMatches, generateFacts, type LogFact, OBJECT_OF, recordFacts, totalTokens } from "./seed-logs";

const HOUR = 3_600_000;
let gw: TestGateway;
let facts: LogFact[];
let anchor: Date;

beforeAll(async () => {
  gw = await startGateway();
  anchor = new Date();
  facts = generateFacts(120, anchor);
  // Small batches: the full-text index is filled batch by batch, and every batch must be found.
  await recordFacts(gw.databaseUrl, facts, { batchSize: 16 });
});
afterAll(() => gw.close());

interface ListBody {
  logs: Array<{ id: string }>;
  count: number;
  total: number | null;
  limit: number;
  offset: number;
}

async function list(query: string): Promise<ListBody> {
  const response = await gw.admin(`/api/logs?limit=1000&${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ListBody;
}

/** Ids newest first: the default order, and the order the facts were generated in. */
const idsOf = (matching: LogFact[]) => [...matching].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime()).map((fact) => fact.id);
const within = (hours: number) => (fact: LogFact) => fact.timestamp.getTime() >= Date.now() - hours * HOUR;
const parentWithChildren = () => facts.find((fact) => facts.some((other) => other.parentRequestId === fact.id))!;

const single: Array<[query: string, matches: (fact: LogFact) => boolean]> = [
  ["providers=openai", (fact) => fact.provider === "openai"],
  ["providers=anthropic,genai", (fact) => ["anthropic", "genai"].includes(fact.provider)],
  ["models=gpt-4o, claude-sonnet-4", (fact) => ["gpt-4o", "claude-sonnet-4"].includes(fact.model)],
  ["aliases=fast", (fact) => fact.alias === "fast"],
  ["status=error", (fact) => fact.status === "error"],
  ["status=success,error", () => true],
  ["status=processing", () => false],
  ["objects=embedding", (fact) => OBJECT_OF[fact.operation] === "embedding"],
  ["selected_key_ids=openai-key-1,genai-key-2", (fact) => ["openai-key-1", "genai-key-2"].includes(fact.keyId)],
  ["virtual_key_ids=vk-a,vk-c", (fact) => ["vk-a", "vk-c"].includes(fact.virtualKeyId!)],
  ["team_ids=team-2", (fact) => fact.teamId === "team-2"],
  ["customer_ids=cust-1", (fact) => fact.customerId === "cust-1"],
  ["user_ids=user-2,user-3", (fact) => ["user-2", "user-3"].includes(fact.userId!)],
  ["business_unit_ids=bu-1", (fact) => fact.businessUnitId === "bu-1"],
  ["project_ids=proj-2", (fact) => fact.projectId === "proj-2"],
  ["routing_rule_ids=rule-eu", (fact) => fact.routingRuleId === "rule-eu"],
  ["routing_engine_used=loadbalancing", (fact) => fact.routingEngine === "loadbalancing"],
  ["stop_reasons=length,tool_calls", (fact) => fact.stopReason === "length" || fact.stopReason === "tool_calls"],
  ["tool_call_names=get_weather", (fact) => fact.toolCallNames.includes("get_weather")],
  ["tool_call_names=lookup,search", (fact) => fact.toolCallNames.some((name) => name === "lookup" || name === "search")],
  ["cache_hit_types=semantic", (fact) => fact.cacheHitType === "semantic"],
  ["min_latency=1000", (fact) => fact.latencyMs >= 1000],
  ["max_latency=500.5", (fact) => fact.latencyMs <= 500.5],
  ["min_cost=0.05", (fact) => fact.cost !== undefined && fact.cost >= 0.05],
  ["max_cost=0.02", (fact) => fact.cost !== undefined && fact.cost <= 0.02],
  ["min_tokens=3000", (fact) => totalTokens(fact) >= 3000],
  ["max_tokens=800", (fact) => totalTokens(fact) <= 800],
  ["missing_cost_only=true", (fact) => fact.cost === undefined],
  ["missing_cost_only=false", () => true],
  ["session_id=sess-1", (fact) => fact.sessionId === "sess-1"],
  ["metadata_env=staging", (fact) => fact.metadata.env === "staging"],
  ["metadata_feature=search", (fact) => fact.metadata.feature === "search"],
  ["content_search=zebra", (fact) => contentMatches(fact, "zebra")],
  ["content_search=QUAS", (fact) => contentMatches(fact, "quas")],
  ["content_search=zebra%20harbor", (fact) => contentMatches(fact, "zebra harbor")],
  ["content_search=%22harb*%20(mead", (fact) => contentMatches(fact, "harb mead")],
  ["content_search=%22*()", () => false],
  ["roots_only=true", (fact) => fact.parentRequestId === undefined],
  ["period=24h", within(24)],
  ["period=90m", within(1.5)],
];

describe("GET /api/logs: each filter of spec 4.10 on its own", () => {
  test.each(single)("%s", async (query, matches) => {
    const expected = idsOf(facts.filter(matches));
    const body = await list(query);
    expect(body.logs.map((log) => log.id)).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  test("the seeded set exercises every filter with some rows in and some out", () => {
    const allOrNothing = new Set(["status=success,error", "status=processing", "missing_cost_only=false", "content_search=%22*()"]);
    for (const [, matches] of single.filter(([query]) => !allOrNothing.has(query))) {
      const count = facts.filter(matches).length;
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThan(facts.length);
    }
  });

  test("parent_request_id lists the fallback children of a request", async () => {
    const parent = parentWithChildren();
    const body = await list(`parent_request_id=${parent.id}`);
    expect(body.logs.map((log) => log.id)).toEqual(idsOf(facts.filter((fact) => fact.parentRequestId === parent.id)));
  });

  test("start_time and end_time bound the range inclusively, in any RFC 3339 offset", async () => {
    const [later, earlier] = [facts[10]!, facts[40]!];
    // The same instant as `later`, written as wall time at +02:00.
    const end = new Date(later.timestamp.getTime() + 2 * HOUR).toISOString().replace("Z", "+02:00");
    const expected = idsOf(facts.filter((fact) => fact.timestamp >= earlier.timestamp && fact.timestamp <= later.timestamp));
    expect(expected).toHaveLength(31);
    const body = await list(`start_time=${earlier.timestamp.toISOString()}&end_time=${encodeURIComponent(end)}`);
    expect(body.logs.map((log) => log.id)).toEqual(expected);
  });

  test("an offset written with an unencoded '+' (a space once decoded) is read as '+'", async () => {
    const [later, earlier] = [facts[3]!, facts[9]!];
    const plusOffset = (date: Date) => date.toISOString().replace("Z", "+00:00");
    const body = await list(`start_time=${plusOffset(earlier.timestamp)}&end_time=${plusOffset(later.timestamp)}`);
    expect(body.logs.map((log) => log.id)).toEqual(idsOf(facts.slice(3, 10)));
  });

  test("a period reaching back past 1970 covers every log", async () => {
    const body = await list("period=4000000M&limit=1000");
    expect(body.logs).toHaveLength(facts.length);
  });

  test("February 29 of a leap year is a day like any other", async () => {
    const body = await list("start_time=2024-02-29T00:00:00Z&limit=1000");
    expect(body.logs.map((log) => log.id)).toEqual(idsOf(facts.filter((fact) => fact.timestamp >= new Date("2024-02-29T00:00:00Z"))));
  });

  test("period wins over start_time and end_time", async () => {
    const body = await list(`period=24h&start_time=${new Date(0).toISOString()}&end_time=${new Date(HOUR).toISOString()}`);
    expect(body.logs.map((log) => log.id)).toEqual(idsOf(facts.filter(within(24))));
  });
});

describe("GET /api/logs: filters combined", () => {
  const combined: Array<[query: string, matches: (fact: LogFact) => boolean]> = [
    ["providers=openai&status=success&period=24h", (fact) => fact.provider === "openai" && fact.status === "success" && within(24)(fact)],
    ["virtual_key_ids=vk-a,vk-b&min_latency=800&metadata_env=prod", (fact) => ["vk-a", "vk-b"].includes(fact.virtualKeyId!) && fact.latencyMs >= 800 && fact.metadata.env === "prod"],
    ["tool_call_names=get_weather&content_search=weather&roots_only=true", (fact) => fact.toolCallNames.includes("get_weather") && contentMatches(fact, "weather") && !fact.parentRequestId],
    ["objects=chat.completion&min_tokens=1000&max_tokens=3000&missing_cost_only=true", (fact) => fact.operation === "chat" && totalTokens(fact) >= 1000 && totalTokens(fact) <= 3000 && fact.cost === undefined],
  ];
  test.each(combined)("%s", async (query, matches) => {
    const expected = idsOf(facts.filter(matches));
    expect(expected.length).toBeGreaterThan(0);
    const body = await list(query);
    expect(body.logs.map((log) => log.id)).toEqual(expected);
  });
});

describe("GET /api/logs: request_id", () => {
  const child = () => facts.find((fact) => fact.parentRequestId && !within(24)(fact))!;

  test("an exact lookup ignores the time range and roots_only, so a fallback child is found", async () => {
    const wanted = child();
    const body = await list(`request_id=${wanted.id}&roots_only=true&period=1h&start_time=${new Date().toISOString()}`);
    expect(body.logs.map((log) => log.id)).toEqual([wanted.id]);
    expect(body.total).toBe(1);
  });

  test("the other filters still apply to it", async () => {
    const wanted = child();
    const otherProvider = wanted.provider === "openai" ? "genai" : "openai";
    expect((await list(`request_id=${wanted.id}&providers=${otherProvider}`)).logs).toEqual([]);
    expect((await list(`request_id=${wanted.id}&providers=${wanted.provider}`)).logs.map((log) => log.id)).toEqual([wanted.id]);
  });

  test("an unknown id matches nothing", async () => {
    expect((await list("request_id=req-none")).total).toBe(0);
  });
});

describe("GET /api/logs: sorting and paging", () => {
  const sortedBy = (field: (fact: LogFact) => number | undefined, order: "asc" | "desc") => {
    const index = (fact: LogFact) => facts.indexOf(fact);
    const sign = order === "asc" ? 1 : -1;
    // Ties fall back to insertion order in the same direction; missing values go last.
    return [...facts]
      .sort((a, b) => {
        const [left, right] = [field(a), field(b)];
        if (left === undefined || right === undefined) return left === right ? sign * (index(a) - index(b)) : left === undefined ? 1 : -1;
        return left === right ? sign * (index(a) - index(b)) : sign * (left - right);
      })
      .map((fact) => fact.id);
  };

  test.each([
    ["latency", "asc", (fact: LogFact) => fact.latencyMs],
    ["latency", "desc", (fact: LogFact) => fact.latencyMs],
    ["tokens", "desc", totalTokens],
    ["cost", "asc", (fact: LogFact) => fact.cost],
    ["cost", "desc", (fact: LogFact) => fact.cost],
    ["timestamp", "asc", (fact: LogFact) => fact.timestamp.getTime()],
  ] as const)("sort_by=%s&order=%s", async (sortBy, order, field) => {
    const body = await list(`sort_by=${sortBy}&order=${order}`);
    expect(body.logs.map((log) => log.id)).toEqual(sortedBy(field, order));
  });

  test("limit and offset page through the matches while total counts them all", async () => {
    const expected = idsOf(facts.filter((fact) => fact.status === "success"));
    const response = await gw.admin("/api/logs?status=success&limit=10&offset=20");
    const body = (await response.json()) as ListBody;
    expect(body.logs.map((log) => log.id)).toEqual(expected.slice(20, 30));
    expect({ count: body.count, total: body.total, limit: body.limit, offset: body.offset }).toEqual({ count: 10, total: expected.length, limit: 10, offset: 20 });
  });

  test("include_total=false answers the same page with total null: nothing counts every match", async () => {
    const counted = (await (await gw.admin("/api/logs?status=success&limit=10&offset=20")).json()) as ListBody;
    const uncounted = (await (await gw.admin("/api/logs?status=success&limit=10&offset=20&include_total=false")).json()) as ListBody;
    expect(uncounted.logs).toEqual(counted.logs);
    expect({ count: uncounted.count, total: uncounted.total, limit: uncounted.limit, offset: uncounted.offset }).toEqual({ count: 10, total: null, limit: 10, offset: 20 });
  });

  test("without limit a page holds 50 logs", async () => {
    const body = (await (await gw.admin("/api/logs")).json()) as ListBody;
    expect(body.logs).toHaveLength(50);
    expect(body.total).toBe(facts.length);
  });
});

describe("GET /api/logs: the logs page's filters over a large log", () => {
  /**
   * The plan SQLite makes for the page the logs page reads (newest first, 50): a value few rows
   * carry must be found from an index, never by reading every row (over a million rows, seconds).
   * Scans of the partial indexes read only the rows that called a tool, met a guardrail or are
   * the gateway's own calls.
   */
  test.each(["team_ids=t", "customer_ids=c", "selected_key_ids=k", "virtual_key_ids=v", "status_codes=429", "error_types=e", "tool_call_names=x", "guardrails=g", "guardrail_actions=block", "metadata_feature=x"])(
    "%s reads an index, not every row",
    async (query) => {
      const database = await openDatabase(gw.databaseUrl);
      try {
        const filters = readLogFilters(Object.fromEntries(new URLSearchParams(query)), new Date());
        const page = database.db.select({ seq: requestLogs.seq }).from(requestLogs).where(logConditions(filters)).orderBy(desc(requestLogs.timestamp), desc(requestLogs.seq)).limit(50).toSQL();
        const plan = (await database.db.all<{ detail: string }>(sql.raw(`EXPLAIN QUERY PLAN ${page.sql.replace(/\?/g, "'x'")}`))).map((step) => step.detail);
        const fullScans = plan.filter((step) => step.startsWith("SCAN request_logs") && !/USING (COVERING )?INDEX request_logs_(internal|tool_calls|guardrails)_idx$/.test(step));
        expect(fullScans).toEqual([]);
      } finally {
        database.close();
      }
    },
  );
});

describe("GET /api/logs: the page of a large log's filters, newest first", () => {
  /** The plan SQLite makes for picking the page's rowids (50, newest first), every bound value inlined. */
  async function pagePlan(query: string): Promise<string[]> {
    const database = await openDatabase(gw.databaseUrl);
    try {
      const filters = readLogFilters(Object.fromEntries(new URLSearchParams(query)), new Date());
      const page = pageOfSeqs(database.db as unknown as ReadDatabase, filters, readPage({})).toSQL();
      return (await database.db.all<{ detail: string }>(sql.raw(`EXPLAIN QUERY PLAN ${page.sql.replace(/\?/g, "'x'")}`))).map((step) => step.detail);
    } finally {
      database.close();
    }
  }

  // A value a sixth of a million rows carry: sorting every match by time took seconds.
  test("a metadata value: its newest matches are read in order, never every match sorted", async () => {
    const plan = await pagePlan("metadata_feature=x");
    // The gateway's own calls, left out of the page, are read once from their partial index.
    expect(plan.filter((step) => step.includes("TEMP B-TREE") || (step.startsWith("SCAN request_logs") && !step.endsWith("request_logs_internal_idx")))).toEqual([]);
    expect(plan).toContain("SEARCH request_log_metadata USING PRIMARY KEY (key=? AND value=?)");
  });

  // Stats of a common value over 30 days read its edge hours from the logs: all of its pairs fetched every row they name.
  test("a metadata value within a window reads only the window's pairs", async () => {
    const database = await openDatabase(gw.databaseUrl);
    try {
      const filters = readLogFilters({ metadata_feature: "x", period: "1h" } as never, new Date());
      const query = database.db.select({ seq: requestLogs.seq }).from(requestLogs).where(logConditions(filters)).toSQL();
      const plan = (await database.db.all<{ detail: string }>(sql.raw(`EXPLAIN QUERY PLAN ${query.sql.replace(/\?/g, "'x'")}`))).map((step) => step.detail);
      expect(plan.filter((step) => step.includes("request_log_metadata"))).toEqual([expect.stringContaining("(key=? AND value=? AND timestamp>? AND timestamp<?)")]);
    } finally {
      database.close();
    }
  });

  // A tenth of a million rows called a tool: reading each for its tool names took seconds.
  test("a tool: each candidate is checked in the tool index, its row never read", async () => {
    const plan = await pagePlan("tool_call_names=x");
    expect(plan.filter((step) => step.includes("request_logs_tool_calls_idx"))).toEqual([expect.stringContaining("USING COVERING INDEX request_logs_tool_calls_idx")]);
  });

  test.each(["metadata_env=prod&order=asc", "metadata_feature=search&offset=7&limit=9", "metadata_env=staging&metadata_feature=chat&period=24h"])("%s pages as the facts say", async (query) => {
    const params = new URLSearchParams(query);
    const matching = facts.filter((fact) => fact.metadata.env === (params.get("metadata_env") ?? fact.metadata.env) && fact.metadata.feature === (params.get("metadata_feature") ?? fact.metadata.feature) && (!params.has("period") || within(24)(fact)));
    const newestFirst = idsOf(matching);
    const ordered = params.get("order") === "asc" ? newestFirst.reverse() : newestFirst;
    const offset = Number(params.get("offset") ?? 0);
    const body = (await (await gw.admin(`/api/logs?${params.has("limit") ? query : `limit=1000&${query}`}`)).json()) as ListBody;
    expect(body.logs.map((log) => log.id)).toEqual(ordered.slice(offset, offset + Number(params.get("limit") ?? 1000)));
    expect(body.total).toBe(matching.length);
  });
});

describe("GET /api/logs: bad parameters are a 400 naming the parameter", () => {
  test.each([
    ["status=finished", "status"],
    ["start_time=yesterday", "start_time"],
    ["end_time=2024-01-01", "end_time"],
    // Shaped like RFC 3339 but no moment: Date would roll these over or make an invalid date.
    ["start_time=2026-02-30T00:00:00Z", "start_time"],
    ["start_time=2026-00-10T00:00:00Z", "start_time"],
    ["end_time=2026-11-25T10:60:00Z", "end_time"],
    ["end_time=2026-11-25T24:00:00Z", "end_time"],
    ["start_time=2026-11-25T10:00:00%2B25:00", "start_time"],
    ["period=3x", "period"],
    ["min_latency=-1", "min_latency"],
    ["max_cost=cheap", "max_cost"],
    ["min_tokens=1.5", "min_tokens"],
    ["missing_cost_only=maybe", "missing_cost_only"],
    ["roots_only=2", "roots_only"],
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["offset=99999999999999999999", "offset"],
    ["offset=-3", "offset"],
    ["sort_by=name", "sort_by"],
    ["order=up", "order"],
  ])("%s", async (query, param) => {
    await expectGatewayError(await gw.admin(`/api/logs?${query}`), 400, { param, errorType: /^caller_/ });
  });
});
