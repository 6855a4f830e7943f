import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/http/error-handler";
import { startGateway, type TestGateway } from "../support/gateway";
import { UNDO_SINCE_0005, undoMigrationsFrom } from "../support/migrations";
import { generateFacts, type LogFact, openRequestLogs, recordFacts } from "./seed-logs";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PERCENTILES = [50, 90, 95, 99] as const;
type Percentiles = Record<`p${(typeof PERCENTILES)[number]}`, number | null>;

/**
 * The log routes on a gateway's database with every stats window's percentiles taken from the
 * latency histogram, as a deployment's are once a window holds more than 100,000 requests.
 */
async function statsFromHistogram(databaseUrl: string) {
  const opened = await openRequestLogs(databaseUrl, { exactPercentilesUpTo: 0 });
  const server = new Elysia().use(errorHandler).use(opened.logs.routes).listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${server.server!.port}/api/logs`;
  return {
    async percentiles(query: string): Promise<Percentiles> {
      const response = await fetch(`${base}/stats?${query}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { latency_percentiles: Percentiles }).latency_percentiles;
    },
    async delete(ids: string[]) {
      const response = await fetch(base, { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids }) });
      expect(response.status).toBe(200);
    },
    async close() {
      await server.stop(true);
      await opened.close();
    },
  };
}

/** Nearest rank, computed from the facts alone. */
function exactPercentiles(facts: LogFact[]): Percentiles {
  const sorted = facts.map((fact) => fact.latencyMs).sort((a, b) => a - b);
  return Object.fromEntries(PERCENTILES.map((p) => [`p${p}`, sorted.length ? sorted[Math.ceil((p / 100) * sorted.length) - 1]! : null])) as Percentiles;
}

function expectWithinOnePercent(answer: Percentiles, exact: Percentiles) {
  for (const p of PERCENTILES) {
    const [got, want] = [answer[`p${p}`], exact[`p${p}`]];
    expect({ p, close: want === null ? got === null : Math.abs(got! - want) <= want * 0.01 }).toEqual({ p, close: true });
  }
}

interface Question {
  query: string;
  matches(fact: LogFact): boolean;
}

/** Odd minutes and seconds, so windows have partial hours at both edges; one lies inside a single hour. */
function questions(anchor: Date): Question[] {
  const at = (offsetMs: number) => new Date(anchor.getTime() + offsetMs);
  const within = (start: Date, end: Date) => (fact: LogFact) => fact.timestamp >= start && fact.timestamp <= end;
  const [start, end] = [at(-6 * DAY - 17 * 60_000 - 13_000), at(-29 * 60_000 - 7_000)];
  const [hourStart, hourEnd] = [at(-50 * HOUR - 3 * 60_000), at(-49 * HOUR - 5 * 60_000)];
  const range = `start_time=${start.toISOString()}&end_time=${end.toISOString()}`;
  return [
    { query: range, matches: within(start, end) },
    { query: `${range}&status=error`, matches: (fact) => within(start, end)(fact) && fact.status === "error" },
    { query: "", matches: () => true },
    { query: `start_time=${hourStart.toISOString()}&end_time=${hourEnd.toISOString()}`, matches: within(hourStart, hourEnd) },
  ];
}

async function expectHistogramAgrees(stats: Awaited<ReturnType<typeof statsFromHistogram>>, facts: LogFact[], anchor: Date) {
  for (const { query, matches } of questions(anchor)) {
    const window = facts.filter(matches);
    expect(window.length).toBeGreaterThan(1);
    expectWithinOnePercent(await stats.percentiles(query), exactPercentiles(window));
  }
}

describe("latency percentiles of long windows, from the hourly histogram", () => {
  let gw: TestGateway;
  let stats: Awaited<ReturnType<typeof statsFromHistogram>>;
  let facts: LogFact[];
  const anchor = new Date("2026-06-11T14:41:00.000Z");
  beforeAll(async () => {
    gw = await startGateway();
    facts = generateFacts(900, anchor, 11);
    await recordFacts(gw.databaseUrl, facts);
    stats = await statsFromHistogram(gw.databaseUrl);
  });
  afterAll(async () => {
    await stats.close();
    await gw.close();
  });

  test("are within 1 % of the exact ones, edges and statuses included", async () => {
    await expectHistogramAgrees(stats, facts, anchor);
  });

  test("stay exact where the histogram cannot answer: a model filter", async () => {
    const chosen = facts.filter((fact) => fact.model === "gpt-4o");
    expect(await stats.percentiles("models=gpt-4o")).toEqual(exactPercentiles(chosen));
  });

  test("and exact below the gateway's threshold, for the same windows", async () => {
    const response = await gw.admin("/api/logs/stats");
    expect(((await response.json()) as { latency_percentiles: Percentiles }).latency_percentiles).toEqual(exactPercentiles(facts));
  });

  test("still agree after logs are deleted", async () => {
    const doomed = new Set(facts.filter((_, index) => index % 3 === 1).map((fact) => fact.id));
    await stats.delete([...doomed]);
    await expectHistogramAgrees(
      stats,
      facts.filter((fact) => !doomed.has(fact.id)),
      anchor,
    );
  });
});

test("logs recorded before the latency histogram existed are in it once the gateway upgrades", async () => {
  const anchor = new Date("2026-03-09T19:13:00.000Z");
  const gw = await startGateway();
  const facts = generateFacts(400, anchor, 4);
  await recordFacts(gw.databaseUrl, facts);
  await gw.stop();
  await undoMigrationsFrom(gw.databaseUrl, "0005_logs_latency_histogram", UNDO_SINCE_0005);
  const upgraded = await gw.restart();
  const stats = await statsFromHistogram(upgraded.databaseUrl);
  try {
    await expectHistogramAgrees(stats, facts, anchor);
  } finally {
    await stats.close();
    await upgraded.close();
  }
  // Two starts of the gateway and every migration since 0005 run again.
}, 15_000);
