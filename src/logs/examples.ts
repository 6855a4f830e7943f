import type { Static } from "@sinclair/typebox";
import type { LogEntry, LogPage } from "./replies";

/** What the document shows for the log routes: one chat completion a virtual key sent to OpenAI. */

const row: Static<typeof LogEntry> = {
  id: "01a251db-f73e-7472-8c05-a63c3fd19a8e",
  parent_request_id: null,
  timestamp: "2026-12-07T18:54:59.902Z",
  object: "chat.completion",
  provider: "openai",
  model: "gpt-4o-mini",
  alias: null,
  selected_key_id: "prod-key",
  conversation_id: null,
  complexity_tier: null,
  complexity_score: null,
  virtual_key_id: "0f6c1e9a-4a3b-4d0e-9b7a-2f1d8c5e3a71",
  virtual_key_name: "checkout-service",
  team_id: "7d2b9f40-1c6e-4f8a-a3d5-6e0b4c9f2a18",
  customer_id: null,
  user_id: null,
  business_unit_id: null,
  project_id: null,
  routing_rule_id: null,
  routing_rule_name: null,
  routing_engine_used: null,
  status: "success",
  status_code: 200,
  error_type: null,
  error_message: null,
  stop_reason: "stop",
  tool_call_names: [],
  cache_hit_type: null,
  guardrails: [],
  input_tokens: 14,
  output_tokens: 9,
  cached_tokens: 0,
  reasoning_tokens: 0,
  total_tokens: 23,
  cost: 0.0000075,
  latency: 396.3,
  time_to_first_token: null,
  stream: false,
  session_id: null,
  region: null,
  internal_caller: null,
  metadata: {},
  attempts: [{ provider: "openai", model: "gpt-4o-mini", key: "prod-key", is_fallback: false }],
};

export const logPageExample: Static<typeof LogPage> = { logs: [row], count: 1, total: 1, limit: 50, offset: 0, sort_by: "timestamp", order: "desc" };

export const logEntryExample: Static<typeof LogEntry> = {
  ...row,
  request_content: { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Say hello in French." }] },
  response_content: "Bonjour !",
};
