import { openDatabase } from "../../src/db/client";
import type { InferenceOutcome, RequestContext } from "../../src/inference/hooks";
import { createRequestLogs } from "../../src/logs";
import type { TestGateway } from "../support/gateway";
import type { MockOpenAI } from "../support/mock-openai";

/** A deployment with something to show: providers, an organisation with limits, rules, prices, a guardrail, and a week of traffic. */
export interface ExampleData {
  virtualKeys: Array<{ id: string; name: string; value: string }>;
}

async function created<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  if (!answer.ok) throw new Error(`${answer.url} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as T;
}

const MODELS = [
  ["openai", "gpt-4o"],
  ["openai", "gpt-4o-mini"],
  ["openai", "o3-mini"],
  ["mock", "llama-3.1-70b"],
  ["mock", "qwen-2.5-coder"],
] as const;

let state = 7;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
  return state / 0x7fffffff;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Past traffic written straight to the request log as the recorder writes it: busier by day than by night. */
async function seedHistory(databaseUrl: string, keys: ExampleData["virtualKeys"], rows: number, days: number) {
  const database = await openDatabase(databaseUrl);
  const logs = createRequestLogs(database.db);
  const now = Date.now();
  for (let index = 0; index < rows; index++) {
    const hoursAgo = random() * days * 24;
    const daytime = Math.sin(((now / 3_600_000 - hoursAgo) / 24) * 2 * Math.PI) > -0.3;
    if (!daytime && random() < 0.6) continue;
    const [provider, model] = pick(MODELS);
    const key = pick(keys);
    const failed = random() < 0.04;
    const input = 50 + Math.floor(random() * 2000);
    const output = failed ? 0 : Math.floor(random() * 800);
    const context = {
      id: Bun.randomUUIDv7(),
      receivedAt: new Date(now - hoursAgo * 3_600_000),
      startedAt: 0,
      operation: "chat",
      format: "openai",
      body: { model: `${provider}/${model}`, messages: [{ role: "user", content: "Summarise the release notes in three bullet points." }] },
      stream: random() < 0.4,
      headers: new Headers(),
      targets: [{ provider, model }],
      requestedModel: `${provider}/${model}`,
      caller: { virtualKeyId: key.id, virtualKeyName: key.name },
      metadata: {},
    } as RequestContext;
    const outcome = {
      status: failed ? 502 : 200,
      answered: failed ? undefined : { target: { provider, model }, keyId: `${provider}-primary`, isFallback: false },
      attempts: [{ provider, model, key: `${provider}-primary`, status: failed ? 502 : 200, is_fallback: false }],
      summary: { usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }, finishReason: failed ? undefined : "stop", toolCallNames: [], content: failed ? undefined : "- Faster start-up\n- A dashboard\n- Fewer dependencies" },
      cost: (input * 2.5 + output * 10) / 1_000_000,
      latencyMs: 200 + random() * 1800 + (model.startsWith("o3") ? 2500 : 0),
    } as InferenceOutcome;
    logs.recorder.settle!(context, outcome);
  }
  await logs.flush();
  await logs.close();
  database.close();
}

export async function loadExampleData(gw: TestGateway, upstream: MockOpenAI, auth: string, history = { rows: 6000, days: 8 }): Promise<ExampleData> {
  const admin = (path: string, json: unknown, method = "POST") => gw.admin(path, { method, json, headers: { authorization: `Bearer ${auth}` } });
  await created(admin("/api/providers", { provider: "openai", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "openai-primary", name: "primary", value: "sk-live-example-1234567890", models: ["*"], weight: 2 }, { id: "openai-batch", name: "batch", value: "sk-live-example-0987654321", models: ["gpt-4o-mini"], weight: 1 }] }));
  await created(admin("/api/providers", { provider: "mock", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl }, keys: [{ id: "mock-primary", name: "primary", value: "sk-self-hosted", models: ["*"] }] }));
  const customer = await created<{ customer: { id: string } }>(admin("/api/governance/customers", { name: "Acme Corp", budgets: [{ max_limit: 500, reset_duration: "1M" }] }));
  const team = await created<{ team: { id: string } }>(admin("/api/governance/teams", { name: "Search", customer_id: customer.customer.id, budgets: [{ max_limit: 120, reset_duration: "1w" }], rate_limit: { request_max_limit: 600, request_reset_duration: "1m" } }));
  await created(admin("/api/governance/teams", { name: "Support bots", rate_limit: { token_max_limit: 200000, token_reset_duration: "1h" } }));
  const virtualKeys: ExampleData["virtualKeys"] = [];
  for (const [name, extra] of [
    ["search-backend", { team_id: team.team.id, budgets: [{ max_limit: 50, reset_duration: "1d" }], rate_limit: { token_max_limit: 50000, token_reset_duration: "1h", request_max_limit: 60, request_reset_duration: "1m" } }],
    ["support-bot", { provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }], budgets: [{ max_limit: 5, reset_duration: "1d" }] }],
    ["data-pipeline", { customer_id: customer.customer.id }],
  ] as const) {
    const answer = await created<{ virtual_key: { id: string; name: string; value: string } }>(admin("/api/governance/virtual-keys", { name, ...extra }));
    virtualKeys.push(answer.virtual_key);
  }
  await created(admin("/api/governance/routing-rules", { name: "Free tier to mini", cel_expression: 'headers["x-tier"] == "free"', targets: [{ provider: "openai", model: "gpt-4o-mini" }], fallbacks: ["mock/llama-3.1-70b"], priority: 10 }));
  await created(admin("/api/governance/pricing-overrides", { name: "Self-hosted Llama", scope_kind: "provider", scope_id: "mock", pattern: "llama-", match_type: "prefix", patch: { input_cost_per_token: 0.0000002, output_cost_per_token: 0.0000006 } }));
  await created(admin("/api/guardrails", { name: "No card numbers", description: "Payment card numbers never reach a provider.", checks: [{ type: "payment_card", action: "redact" }] }));
  await created(admin("/api/webhooks", { name: "job-events", url: "https://hooks.example.com/gateway", events: ["async_job.completed", "async_job.failed"] }));
  // Two built-in alert rules, without channels: the Alerts page shows their state and the budget forecasts.
  for (const name of ["error_rate_5", "budget_80"]) await created(admin(`/api/alerts/builtins/${name}`, {}));
  await seedHistory(gw.databaseUrl, virtualKeys, history.rows, history.days);
  return { virtualKeys };
}
