import { createClient } from "@libsql/client";
import journal from "../../src/db/migrations/meta/_journal.json";

/**
 * Takes a stopped gateway's database back to before migration `tag`: runs `undo` (statements
 * reverting it and every later one) and forgets those migrations ran, so the next start applies
 * them again, as it would on a database from before they existed.
 */
export async function undoMigrationsFrom(databaseUrl: string, tag: string, undo: string[]): Promise<void> {
  const migration = journal.entries.find((entry) => entry.tag === tag);
  if (!migration) throw new Error(`no migration ${tag}`);
  const client = createClient({ url: databaseUrl });
  try {
    await client.batch([...undo, { sql: "DELETE FROM __drizzle_migrations WHERE created_at >= ?", args: [migration.when] }], "write");
  } finally {
    client.close();
  }
}

/**
 * Statements reverting migration 0005 (the latency histogram) and every later one, for tests that
 * upgrade a database from before them. A new migration appends what undoes it here, and drops
 * its triggers on request_logs at the top.
 */
export const UNDO_SINCE_0005 = [
  // Triggers first: SQLite drops no column of request_logs a trigger still reads.
  "DROP TRIGGER request_log_group_hours_delete",
  "DROP TRIGGER request_log_group_hours_update",
  "DROP TRIGGER request_log_metadata_update",
  "DROP TRIGGER request_log_metadata_insert",
  "DROP TRIGGER request_log_metadata_delete",
  "DROP TABLE request_log_metadata",
  "DROP INDEX request_logs_team_idx",
  "DROP INDEX request_logs_customer_idx",
  "DROP INDEX request_logs_selected_key_idx",
  "DROP INDEX request_logs_tool_calls_idx",
  "DROP INDEX request_logs_guardrails_idx",
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
  "DROP TABLE mcp_oauth_connections",
  "DROP INDEX request_logs_internal_idx",
  "DROP INDEX request_logs_status_code_idx",
  "DROP INDEX request_logs_error_type_idx",
  "DROP TRIGGER request_log_hours_delete",
  "ALTER TABLE request_logs DROP COLUMN internal_caller",
  "DROP INDEX request_logs_conversation_idx",
  "ALTER TABLE request_logs DROP COLUMN conversation_id",
  "DROP TABLE oidc_used_states",
  "ALTER TABLE governance_virtual_keys DROP COLUMN session_budgets",
  "DROP TABLE log_sink_cursors",
  "DROP TABLE governance_complexity",
  "DROP TABLE governance_session_spend",
  "DROP INDEX request_logs_complexity_idx",
  "ALTER TABLE request_logs DROP COLUMN complexity_tier",
  "ALTER TABLE request_logs DROP COLUMN complexity_score",
  "DROP TABLE alert_channels",
  "DROP TABLE alert_history",
  "DROP TABLE alert_rules",
  "DROP TABLE resumable_stream_events",
  "DROP TABLE resumable_streams",
  "ALTER TABLE governance_virtual_keys DROP COLUMN resumable_streams",
  "DROP TABLE prompt_labels",
  "DROP TABLE prompt_versions",
  "DROP TABLE prompts",
  "ALTER TABLE governance_virtual_keys DROP COLUMN mcp_tool_search",
  "DROP TABLE mcp_virtual_servers",
  "DROP INDEX mcp_tool_logs_virtual_server_idx",
  "ALTER TABLE mcp_tool_logs DROP COLUMN virtual_server",
  "ALTER TABLE mcp_clients DROP COLUMN openapi_source",
  "ALTER TABLE governance_virtual_keys DROP COLUMN allowed_prompts",
  "DROP TABLE log_sinks",
  "ALTER TABLE mcp_clients DROP COLUMN protocol_version",
  "DROP TABLE request_log_group_hours",
  "ALTER TABLE request_log_hours DROP COLUMN cache_hits",
  "ALTER TABLE request_log_hours DROP COLUMN first_token_ms",
  "ALTER TABLE request_log_hours DROP COLUMN first_token_requests",
];
