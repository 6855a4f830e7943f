import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { errorHandler } from "../../src/http/error-handler";
import { GatewayError } from "../../src/http/errors";
import type { InferenceOutcome, RequestContext } from "../../src/inference/hooks";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { contentMatches, generateFacts, openRequestLogs, recordFacts, settledFor } from "./seed-logs";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const SECRET = "sk-live-do-not-log-0042";

function chatContext(id: string, overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    id,
    receivedAt: new Date("2026-03-01T10:00:00.000Z"),
    startedAt: 0,
    operation: "chat",
    format: "openai",
    body: { model: "openai/gpt-4o", messages: [{ role: "user", content: "What is the weather in Lisbon?" }], api_key: SECRET, extra: { nested: { authorization: `Bearer ${SECRET}` } } },
    stream: false,
    headers: new Headers({ authorization: `Bearer ${SECRET}` }),
    targets: [{ provider: "openai", model: "gpt-4o" }, { provider: "anthropic", model: "claude-sonnet-4" }],
    requestedModel: "openai/gpt-4o",
    caller: { virtualKeyId: "vk-1", virtualKeyName: "checkout", teamId: "team-1", customerId: "cust-1", userId: "user-1", businessUnitId: "bu-1", projectId: "proj-1" },
    routingRule: { id: "rule-1", name: "eu traffic" },
    routingEngine: "routing-rule",
    metadata: { env: "prod", feature: "weather" },
    sessionId: "sess-9",
    ...overrides,
  };
}

function answeredOutcome(overrides: Partial<InferenceOutcome> = {}): InferenceOutcome {
  return {
    status: 200,
    answered: { target: { provider: "openai", model: "gpt-4o" }, keyId: "openai-key-2", isFallback: false },
    attempts: [{ provider: "openai", model: "gpt-4o", key: "openai-key-2", status: 200, is_fallback: false }],
    summary: {
      usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 12 } },
      finishReason: "tool_calls",
      toolCallNames: ["get_weather", "get_time"],
      content: "Let me check the forecast.",
    },
    cost: 0.00123,
    cacheHit: "semantic",
    latencyMs: 812.5,
    ...overrides,
  };
}

async function record(pairs: Array<[RequestContext, InferenceOutcome]>, contentLogging = true) {
  const opened = await openRequestLogs(gw.databaseUrl, { contentLogging: () => contentLogging });
  for (const [context, outcome] of pairs) opened.logs.recorder.settle!(context, outcome);
  await opened.close();
}

const detail = async (id: string) => {
  const response = await gw.admin(`/api/logs/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
};

describe("recording: one row per settled request", () => {
  test("a chat request is stored with every field the issue lists", async () => {
    await record([[chatContext("rec-full"), answeredOutcome()]]);
    expect(await detail("rec-full")).toEqual({
      id: "rec-full",
      parent_request_id: null,
      timestamp: "2026-03-01T10:00:00.000Z",
      object: "chat.completion",
      provider: "openai",
      model: "gpt-4o",
      alias: null,
      selected_key_id: "openai-key-2",
      conversation_id: null,
      complexity_tier: null,
      complexity_score: null,
      virtual_key_id: "vk-1",
      virtual_key_name: "checkout",
      team_id: "team-1",
      customer_id: "cust-1",
      user_id: "user-1",
      business_unit_id: "bu-1",
      project_id: "proj-1",
      routing_rule_id: "rule-1",
      routing_rule_name: "eu traffic",
      routing_engine_used: "routing-rule",
      status: "success",
      status_code: 200,
      error_type: null,
      error_message: null,
      stop_reason: "tool_calls",
      tool_call_names: ["get_weather", "get_time"],
      cache_hit_type: "semantic",
      guardrails: [],
      input_tokens: 120,
      output_tokens: 30,
      cached_tokens: 64,
      reasoning_tokens: 12,
      total_tokens: 150,
      cost: 0.00123,
      latency: 812.5,
      time_to_first_token: null,
      stream: false,
      session_id: "sess-9",
      region: null,
      internal_caller: null,
      metadata: { env: "prod", feature: "weather" },
      attempts: [{ provider: "openai", model: "gpt-4o", key: "openai-key-2", status: 200, is_fallback: false }],
      request_content: { model: "openai/gpt-4o", messages: [{ role: "user", content: "What is the weather in Lisbon?" }], api_key: "[REDACTED]", extra: { nested: { authorization: "[REDACTED]" } } },
      response_content: "Let me check the forecast.",
    });
  });

  test("secrets in the body never reach the log, in the detail or the list", async () => {
    await record([[chatContext("rec-secret"), answeredOutcome()]]);
    expect(await (await gw.admin("/api/logs/rec-secret")).text()).not.toContain(SECRET);
    expect(await (await gw.admin("/api/logs?limit=1000")).text()).not.toContain(SECRET);
  });

  test("a failed request keeps its error type and is attributed to the model the client asked for", async () => {
    const error = new GatewayError({ status: 429, errorType: "policy_rate_limited", message: "rate limit reached for vk-1" });
    const outcome = answeredOutcome({ status: 429, error, answered: undefined, attempts: [{ provider: "openai", model: "gpt-4o", key: "openai-key-1", status: 429, error_type: "policy_rate_limited", is_fallback: false }], summary: { toolCallNames: [] }, cost: undefined, cacheHit: undefined });
    await record([[chatContext("rec-error"), outcome]]);
    expect(await detail("rec-error")).toMatchObject({
      status: "error",
      status_code: 429,
      error_type: "policy_rate_limited",
      error_message: "rate limit reached for vk-1",
      provider: "openai",
      model: "gpt-4o",
      selected_key_id: "openai-key-1",
      cost: null,
      total_tokens: 0,
      response_content: null,
    });
  });

  test("a fallback child names its parent, the answering target and the alias the client used", async () => {
    const context = chatContext("rec-child", { parentRequestId: "rec-full", requestedModel: "smart", body: { model: "smart", messages: [] } });
    const outcome = answeredOutcome({ answered: { target: { provider: "anthropic", model: "claude-sonnet-4" }, keyId: "anthropic-key-1", isFallback: true } });
    await record([[context, outcome]]);
    expect(await detail("rec-child")).toMatchObject({ parent_request_id: "rec-full", provider: "anthropic", model: "claude-sonnet-4", alias: "smart", selected_key_id: "anthropic-key-1" });
  });

  test("a stream records its time to first token and its assembled content", async () => {
    const outcome = answeredOutcome({ summary: { toolCallNames: [], content: "streamed words joined", finishReason: "stop", timeToFirstTokenMs: 95.25 } });
    await record([[chatContext("rec-stream", { stream: true }), outcome]]);
    expect(await detail("rec-stream")).toMatchObject({ stream: true, time_to_first_token: 95.25, response_content: "streamed words joined", stop_reason: "stop" });
  });

  test("an embedding is stored with its own object type", async () => {
    const [context, outcome] = settledFor(generateFacts(5, new Date())[4]!);
    await record([[context, outcome]]);
    expect(await detail(context.id)).toMatchObject({ object: "embedding", stop_reason: null, tool_call_names: [] });
  });

  test("with content logging off, tool call names are kept and content is neither stored nor searchable", async () => {
    await record([[chatContext("rec-private", { body: { model: "openai/gpt-4o", messages: [{ role: "user", content: "confidential xylophone" }] } }), answeredOutcome()]], false);
    expect(await detail("rec-private")).toMatchObject({ tool_call_names: ["get_weather", "get_time"], request_content: null, response_content: null });
    const search = (await (await gw.admin("/api/logs?content_search=xylophone")).json()) as { total: number };
    expect(search.total).toBe(0);
    const byTool = (await (await gw.admin("/api/logs?tool_call_names=get_time&request_id=rec-private")).json()) as { total: number };
    expect(byTool.total).toBe(1);
  });

  test("an unknown log id is a 404 gateway error", async () => {
    await expectGatewayError(await gw.admin("/api/logs/rec-missing"), 404, { errorType: /^caller_/ });
  });
});

describe("the batched writer", () => {
  test("a batch bigger than one statement can bind is split, and every row is stored and indexed", async () => {
    const facts = generateFacts(2000, new Date("2026-02-01T00:00:00Z"), 3).map((fact) => ({ ...fact, id: `big-${fact.id}` }));
    await recordFacts(gw.databaseUrl, facts, { batchSize: 2000 });
    const window = "start_time=2025-12-01T00:00:00Z&end_time=2026-02-01T00:00:00Z";
    const stored = (await (await gw.admin(`/api/logs?${window}&limit=1`)).json()) as { total: number };
    expect(stored.total).toBe(2000);
    const found = (await (await gw.admin(`/api/logs?${window}&content_search=quasar&limit=1`)).json()) as { total: number };
    expect(found.total).toBe(facts.filter((fact) => contentMatches(fact, "quasar")).length);
    expect(found.total).toBeGreaterThan(100);
  });
});

describe("recording never disturbs the request", () => {
  test("settle returns at once: the row waits in the queue until a flush writes it", async () => {
    const opened = await openRequestLogs(gw.databaseUrl, { flushIntervalMs: 3_600_000 });
    opened.logs.recorder.settle!(chatContext("rec-queued"), answeredOutcome());
    expect(opened.logs.queueStatus().depth).toBe(1);
    expect((await gw.admin("/api/logs/rec-queued")).status).toBe(404);
    await opened.logs.flush();
    expect(opened.logs.queueStatus().depth).toBe(0);
    expect((await gw.admin("/api/logs/rec-queued")).status).toBe(200);
    await opened.close();
  });

  test("a row that cannot be built is skipped without an exception", async () => {
    const circular: Record<string, unknown> = { model: "openai/gpt-4o" };
    circular.self = circular;
    const opened = await openRequestLogs(gw.databaseUrl);
    expect(() => opened.logs.recorder.settle!(chatContext("rec-broken", { body: circular }), answeredOutcome())).not.toThrow();
    opened.logs.recorder.settle!(chatContext("rec-after-broken"), answeredOutcome());
    await opened.close();
    expect((await gw.admin("/api/logs/rec-broken")).status).toBe(404);
    expect((await gw.admin("/api/logs/rec-after-broken")).status).toBe(200);
  });

  test("rows with long content are bounded by bytes as well as by count", async () => {
    const opened = await openRequestLogs(gw.databaseUrl, { queueCapacityBytes: 80_000, batchSize: 100, flushIntervalMs: 3_600_000 });
    const server = new Elysia().use(errorHandler).use(opened.logs.routes).listen({ port: 0, hostname: "127.0.0.1" });
    const pasted = "the harbour lease, clause by clause ".repeat(1_000);
    try {
      for (let index = 0; index < 5; index++) {
        opened.logs.recorder.settle!(chatContext(`rec-long-${index}`, { body: { model: "openai/gpt-4o", messages: [{ role: "user", content: pasted }] } }), answeredOutcome());
      }
      // Each row holds ~36 KB of content: two fit in 80 KB, the other three are dropped.
      const stats = (await (await fetch(`http://127.0.0.1:${server.server!.port}/api/logs/stats`)).json()) as { log_queue: { depth: number; dropped: number; bytes: number } };
      expect(stats.log_queue).toMatchObject({ depth: 2, dropped: 3 });
      expect(stats.log_queue.bytes).toBeGreaterThan(2 * pasted.length);
    } finally {
      await server.stop(true);
      await opened.close();
    }
    expect((await gw.admin("/api/logs/rec-long-1")).status).toBe(200);
    expect((await gw.admin("/api/logs/rec-long-2")).status).toBe(404);
  });

  test("when the queue is full rows are dropped and counted, and GET /api/logs/stats shows it", async () => {
    const opened = await openRequestLogs(gw.databaseUrl, { queueCapacity: 3, batchSize: 100, flushIntervalMs: 3_600_000 });
    const server = new Elysia().use(errorHandler).use(opened.logs.routes).listen({ port: 0, hostname: "127.0.0.1" });
    try {
      for (let index = 0; index < 8; index++) opened.logs.recorder.settle!(chatContext(`rec-burst-${index}`), answeredOutcome());
      const stats = (await (await fetch(`http://127.0.0.1:${server.server!.port}/api/logs/stats`)).json()) as { log_queue: unknown };
      expect(stats.log_queue).toEqual({ depth: 3, bytes: expect.any(Number), capacity: 3, dropped: 5, failed: 0, retries: 0, quarantined: 0 });
      await opened.logs.flush();
      const written = (await (await gw.admin("/api/logs?content_search=Lisbon&limit=1000")).json()) as { logs: Array<{ id: string }> };
      expect(written.logs.map((log) => log.id).filter((id) => id.startsWith("rec-burst-"))).toEqual(["rec-burst-2", "rec-burst-1", "rec-burst-0"]);
    } finally {
      await server.stop(true);
      await opened.close();
    }
  });
});
