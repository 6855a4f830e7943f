import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/http/error-handler";
import { startGateway, type TestGateway } from "../support/gateway";
import { undoMigrationsFrom } from "../support/migrations";
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
  await undoMigrationsFrom(gw.databaseUrl, "0005_logs_latency_histogram", ["DROP TRIGGER request_log_metadata_insert", "DROP TRIGGER request_log_metadata_delete", "DROP TABLE request_log_metadata", "DROP INDEX request_logs_team_idx", "DROP INDEX request_logs_customer_idx", "DROP INDEX request_logs_selected_key_idx", "DROP INDEX request_logs_tool_calls_idx", "DROP INDEX request_logs_guardrails_idx", "DROP TRIGGER request_log_latencies_delete", "DROP TABLE request_log_latencies", "DROP TABLE stored_responses", "DROP TABLE background_responses", "DROP TABLE actor_signals", "DROP TABLE provider_object_keys", "DROP INDEX mcp_tool_logs_change_idx", "ALTER TABLE mcp_tool_logs DROP COLUMN change_seq", "DROP TABLE conversation_items", "DROP TABLE conversations", "DROP TABLE governance_video_charges", "ALTER TABLE mcp_tool_logs DROP COLUMN notifications", "DROP TABLE actor_instances", "DROP TABLE actor_transitions", "ALTER TABLE webhook_endpoints DROP COLUMN max_deliveries_per_second", "ALTER TABLE webhook_endpoints DROP COLUMN failing_after_failed_attempts", "ALTER TABLE webhook_endpoints DROP COLUMN disable_after_failing_seconds", "ALTER TABLE webhook_endpoints DROP COLUMN disable_after_failed_messages", "ALTER TABLE webhook_endpoints DROP COLUMN state", "ALTER TABLE webhook_endpoints DROP COLUMN state_since", "ALTER TABLE webhook_endpoints DROP COLUMN failing_since", "ALTER TABLE webhook_endpoints DROP COLUMN disabled_reason", "ALTER TABLE providers DROP COLUMN private_network_allowed", "ALTER TABLE mcp_clients DROP COLUMN private_network_allowed", "ALTER TABLE a2a_agents DROP COLUMN private_network_allowed", "DROP TABLE guardrail_policies", "ALTER TABLE request_logs DROP COLUMN guardrails", "DROP TABLE governance_quota", "ALTER TABLE request_logs DROP COLUMN region", "ALTER TABLE mcp_tool_logs DROP COLUMN region", "DROP TABLE oidc_identities", "ALTER TABLE management_api_keys DROP COLUMN owner_user_id", "ALTER TABLE plugins DROP COLUMN run_order", "DROP TABLE mcp_oauth_connections", "DROP INDEX request_logs_internal_idx", "DROP INDEX request_logs_status_code_idx", "DROP INDEX request_logs_error_type_idx", "DROP TRIGGER request_log_hours_delete", "ALTER TABLE request_logs DROP COLUMN internal_caller", "DROP INDEX request_logs_conversation_idx", "ALTER TABLE request_logs DROP COLUMN conversation_id", "DROP TABLE oidc_used_states", "ALTER TABLE governance_virtual_keys DROP COLUMN session_budgets", "DROP TABLE log_sink_cursors", "DROP TABLE governance_complexity", "DROP TABLE governance_session_spend", "DROP INDEX request_logs_complexity_idx", "ALTER TABLE request_logs DROP COLUMN complexity_tier", "ALTER TABLE request_logs DROP COLUMN complexity_score", "DROP TABLE alert_channels", "DROP TABLE alert_history", "DROP TABLE alert_rules", "DROP TABLE resumable_stream_events", "DROP TABLE resumable_streams", "ALTER TABLE governance_virtual_keys DROP COLUMN resumable_streams", "DROP TABLE prompt_labels", "DROP TABLE prompt_versions", "DROP TABLE prompts", "ALTER TABLE governance_virtual_keys DROP COLUMN mcp_tool_search", "DROP TABLE mcp_virtual_servers", "DROP INDEX mcp_tool_logs_virtual_server_idx", "ALTER TABLE mcp_tool_logs DROP COLUMN virtual_server", "ALTER TABLE mcp_clients DROP COLUMN openapi_source", "ALTER TABLE governance_virtual_keys DROP COLUMN allowed_prompts", "DROP TABLE log_sinks"]);
  const upgraded = await gw.restart();
  const stats = await statsFromHistogram(upgraded.databaseUrl);
  try {
    await expectHistogramAgrees(stats, facts, anchor);
  } finally {
    await stats.close();
    await upgraded.close();
  }
});
