/**
 * Every filter of the logs page and every Analytics query over a million request logs: seeds a
 * database as bench/logs.ts does (the same flags; `--db` keeps it for the next run), then times
 * each over HTTP, p50 of `--runs`. Target: every one under 1 s.
 *
 *   npx bun bench/logs-1m.ts [--rows 1000000] [--runs 5] [--db /tmp/logs-1m.db]
 *
 * Each filter is timed twice on the logs page's own read (a page of 50, newest first, no total):
 * with a value many rows have, and with one no row has, which reads the most (every candidate row).
 */
import { Elysia } from "elysia";
import { errorHandler } from "../src/http/error-handler";
import { openSeeded, p50 } from "./logs";

const TARGET_MS = 1000;

/** Each filter of the logs page: a value many rows carry, and one none does. */
const FILTERS: Array<[name: string, common: string, none: string]> = [
  ["status code", "status_codes=429", "status_codes=418"],
  ["error type", "error_types=policy_rate_limited", "error_types=provider_timeout"],
  ["virtual key", "virtual_key_ids=vk-7", "virtual_key_ids=vk-none"],
  ["team", "team_ids=team-3", "team_ids=team-none"],
  ["customer", "customer_ids=customer-42", "customer_ids=customer-none"],
  ["provider key", "selected_key_ids=anthropic-key-1", "selected_key_ids=key-none"],
  ["model", "models=gpt-4o-mini", "models=model-none"],
  ["tool called (MCP tools too)", "tool_call_names=get_weather", "tool_call_names=tool-none"],
  ["guardrail", "guardrails=pii", "guardrails=guardrail-none"],
  ["verdict", "guardrail_actions=block", "guardrail_actions=warn"],
  ["metadata", "metadata_feature=search", "metadata_feature=none"],
];

const PAGE = "/api/logs?limit=50&include_total=false";

/** What the Analytics page reads, over its longest window, plain and narrowed by each kind of filter. */
const ANALYTICS: Array<[name: string, path: string]> = [
  ["stats, 30 d", "/api/logs/stats?period=30d"],
  ["series by model, 30 d", "/api/logs/series?period=30d&group_by=model"],
  ["series by error type, 30 d", "/api/logs/series?period=30d&group_by=error_type"],
  ["series by virtual key, 30 d", "/api/logs/series?period=30d&group_by=virtual_key"],
  ["series by team, 30 d", "/api/logs/series?period=30d&group_by=team"],
  ["series by customer, 30 d", "/api/logs/series?period=30d&group_by=customer"],
  ["series by metadata key, 30 d", "/api/logs/series?period=30d&group_by=metadata.feature"],
  ["stats blocked by guardrails, 30 d", "/api/logs/stats?period=30d&guardrail_actions=block"],
  ["stats redacted by guardrails, 30 d", "/api/logs/stats?period=30d&guardrail_actions=redact"],
  ["stats of a customer, 30 d", "/api/logs/stats?period=30d&customer_ids=customer-42"],
  ["series of a customer, 30 d", "/api/logs/series?period=30d&group_by=model&customer_ids=customer-42"],
  ["stats of a metadata value, 30 d", "/api/logs/stats?period=30d&metadata_feature=search"],
  ["metadata keys in use", "/api/logs/metadata-keys"],
  ["rankings by virtual key, 30 d", "/api/logs/rankings?period=30d&group_by=virtual_key"],
];

async function timed(base: string, name: string, path: string) {
  const median = await p50(base + path);
  console.log(`  ${name.padEnd(52)} ${median.toFixed(1).padStart(8)} ms ${median < TARGET_MS ? "ok" : "SLOW"}`);
}

const { logs, close } = await openSeeded();
try {
  // A query slower than Bun's default idle timeout (10 s) would end its connection: timed instead.
  const server = new Elysia().use(errorHandler).use(logs.routes).listen({ port: 0, hostname: "127.0.0.1", idleTimeout: 255 });
  const base = `http://127.0.0.1:${server.server!.port}`;
  console.log(`\nthe logs page's read (a page of 50, no total), by filter: p50 over HTTP (target < ${TARGET_MS} ms)`);
  for (const [name, common, none] of FILTERS) {
    await timed(base, `${name}: ${common}`, `${PAGE}&${common}`);
    await timed(base, `${name}, matching nothing`, `${PAGE}&${none}`);
  }
  console.log("\nAnalytics");
  for (const [name, path] of ANALYTICS) await timed(base, name, path);
  await server.stop(true);
} finally {
  await close();
}
