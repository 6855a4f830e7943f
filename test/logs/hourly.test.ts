import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { undoMigrationsFrom } from "../support/migrations";
import { generateFacts, type LogFact, openRequestLogs, recordFacts } from "./seed-logs";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// Stats, rankings and histograms read whole hours from request_log_hours when only the window,
// providers, models and statuses filter them. `min_latency=0` matches every log but no hour, so
// the same question with it is answered from the logs alone: the two answers must agree.
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
  ];
}

async function expectHoursAgreeWithLogs(gw: TestGateway, anchor: Date) {
  for (const path of questions(anchor)) {
    const fromHours = await answer(gw, path);
    const fromLogs = await answer(gw, `${path}${path.includes("?") ? "&" : "?"}${FROM_LOGS_ONLY}`);
    expect({ path, answer: fromHours }).toEqual({ path, answer: fromLogs });
  }
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
  await undoMigrationsFrom(gw.databaseUrl, "0002_logs_hourly", [
    // Migration 0033 first: its partial index reads the guardrails column dropped below.
    "DROP TRIGGER request_log_metadata_insert", "DROP TRIGGER request_log_metadata_delete", "DROP TABLE request_log_metadata",
    "DROP INDEX request_logs_team_idx", "DROP INDEX request_logs_customer_idx", "DROP INDEX request_logs_selected_key_idx", "DROP INDEX request_logs_tool_calls_idx", "DROP INDEX request_logs_guardrails_idx",
    "DROP TRIGGER request_log_hours_delete",
    "DROP TABLE request_log_hours",
    "ALTER TABLE actor_snapshots DROP COLUMN owner",
    "ALTER TABLE actor_snapshots DROP COLUMN lease_until",
    "ALTER TABLE provider_keys DROP COLUMN reached_models",
    "DROP TRIGGER request_log_latencies_delete",
    "DROP TABLE request_log_latencies",
    "DROP TABLE stored_responses",
    "DROP TABLE background_responses",
    "DROP TABLE actor_signals",
    "DROP TABLE provider_object_keys",
    "DROP INDEX mcp_tool_logs_change_idx",
    "ALTER TABLE mcp_tool_logs DROP COLUMN change_seq",
    "DROP TABLE conversation_items",
    "DROP TABLE conversations",
    "DROP TABLE governance_video_charges",
    "ALTER TABLE mcp_tool_logs DROP COLUMN notifications",
    "DROP TABLE actor_instances",
    "DROP TABLE actor_transitions",
    "ALTER TABLE webhook_endpoints DROP COLUMN max_deliveries_per_second",
    "ALTER TABLE webhook_endpoints DROP COLUMN failing_after_failed_attempts",
    "ALTER TABLE webhook_endpoints DROP COLUMN disable_after_failing_seconds",
    "ALTER TABLE webhook_endpoints DROP COLUMN disable_after_failed_messages",
    "ALTER TABLE webhook_endpoints DROP COLUMN state",
    "ALTER TABLE webhook_endpoints DROP COLUMN state_since",
    "ALTER TABLE webhook_endpoints DROP COLUMN failing_since",
    "ALTER TABLE webhook_endpoints DROP COLUMN disabled_reason",
    "ALTER TABLE providers DROP COLUMN private_network_allowed",
    "ALTER TABLE mcp_clients DROP COLUMN private_network_allowed",
    "ALTER TABLE a2a_agents DROP COLUMN private_network_allowed",
    "DROP TABLE guardrail_policies",
    "ALTER TABLE request_logs DROP COLUMN guardrails",
    "DROP TABLE governance_quota",
    "ALTER TABLE request_logs DROP COLUMN region",
    "ALTER TABLE mcp_tool_logs DROP COLUMN region",
    "DROP TABLE oidc_identities",
    "ALTER TABLE management_api_keys DROP COLUMN owner_user_id",
    "ALTER TABLE plugins DROP COLUMN run_order",
    "DROP TABLE mcp_oauth_connections", "DROP INDEX request_logs_internal_idx", "DROP INDEX request_logs_status_code_idx", "DROP INDEX request_logs_error_type_idx", "ALTER TABLE request_logs DROP COLUMN internal_caller", "DROP INDEX request_logs_conversation_idx", "ALTER TABLE request_logs DROP COLUMN conversation_id", "DROP TABLE oidc_used_states", "ALTER TABLE governance_virtual_keys DROP COLUMN session_budgets", "DROP TABLE log_sink_cursors", "DROP TABLE governance_complexity", "DROP TABLE governance_session_spend", "DROP INDEX request_logs_complexity_idx", "ALTER TABLE request_logs DROP COLUMN complexity_tier", "ALTER TABLE request_logs DROP COLUMN complexity_score", "DROP TABLE alert_channels", "DROP TABLE alert_history", "DROP TABLE alert_rules", "DROP TABLE resumable_stream_events", "DROP TABLE resumable_streams", "ALTER TABLE governance_virtual_keys DROP COLUMN resumable_streams", "DROP TABLE prompt_labels", "DROP TABLE prompt_versions", "DROP TABLE prompts", "ALTER TABLE governance_virtual_keys DROP COLUMN mcp_tool_search", "DROP TABLE mcp_virtual_servers", "DROP INDEX mcp_tool_logs_virtual_server_idx", "ALTER TABLE mcp_tool_logs DROP COLUMN virtual_server", "ALTER TABLE mcp_clients DROP COLUMN openapi_source", "ALTER TABLE governance_virtual_keys DROP COLUMN allowed_prompts", "DROP TABLE log_sinks",
  ]);
  const upgraded = await gw.restart();
  try {
    await expectHoursAgreeWithLogs(upgraded, anchor);
  } finally {
    await upgraded.close();
  }
});
