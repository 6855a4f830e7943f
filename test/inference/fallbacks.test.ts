import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

/** Three providers on one mock upstream, told apart by their key. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  // Each test's failures are its own: breakers, which remember failures across requests, are off (key-breakers.test.ts has them).
  const provider = (key: string, max_retries = 0) => ({ keys: [{ id: key, value: `secret-${key}` }], network_config: { base_url: upstream.baseUrl, max_retries, retry_backoff_initial: 1, health: { enabled: false } } });
  gw = await startGateway({ providers: { openai: provider("primary", 1), mistral: provider("first-fallback"), groq: provider("second-fallback") } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterEach(() => {
  upstream.faults.length = 0;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const FALLBACKS = ["mistral/mistral-small", "groq/llama-3.1-8b"];
const fail = (status: number) => ({ kind: "status" as const, status });
const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");

async function chatWithFallbacks(fallbacks = FALLBACKS, extra: Record<string, unknown> = {}) {
  const start = upstream.requests.length;
  const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o", messages: [{ role: "user", content: "fall back" }], fallbacks, ...extra });
  const sent = () => upstream.requests.slice(start);
  return { response, sent };
}

describe("fallbacks are tried in order after the primary fails", () => {
  test("a healthy primary answers alone; fallbacks stay untouched and are not sent upstream", async () => {
    const { response, sent } = await chatWithFallbacks();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("openai");
    await response.arrayBuffer();
    expect(sent().map(keyOf)).toEqual(["primary"]);
    expect(sent()[0]!.body).not.toHaveProperty("fallbacks");
  });

  test("when the primary fails (after its own retries) the first fallback answers, with its own model", async () => {
    upstream.faults.push(fail(500), fail(500));
    const completion = await client.chat.completions.create({
      model: "openai/gpt-4o",
      messages: [{ role: "user", content: "rescued" }],
      ...{ fallbacks: FALLBACKS },
    });
    expect(completion.choices[0]!.message.content).toBe("echo: rescued");
    const sent = upstream.requests.slice(-3);
    expect(sent.map(keyOf)).toEqual(["primary", "primary", "first-fallback"]);
    expect(sent[2]!.body.model).toBe("mistral-small");
  });

  test("each fallback in turn: the second answers when the first also fails", async () => {
    upstream.faults.push(fail(500), fail(500), fail(503));
    const { response, sent } = await chatWithFallbacks();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("groq");
    expect(response.headers.get("x-gw-model")).toBe("llama-3.1-8b");
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "echo: fall back" } }] });
    expect(sent().map(keyOf)).toEqual(["primary", "primary", "first-fallback", "second-fallback"]);
  });

  test("a streamed request falls back too", async () => {
    upstream.faults.push(fail(502), fail(502));
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o", messages: [{ role: "user", content: "stream rescue" }], stream: true, ...{ fallbacks: FALLBACKS } });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: stream rescue");
    expect(keyOf(upstream.requests.at(-1)!)).toBe("first-fallback");
  });
});

describe("when every target fails, the primary's error is returned with routing_info", () => {
  test("status and error_type are the primary's; routing_info lists every attempt with is_fallback", async () => {
    upstream.faults.push(fail(503), fail(503), fail(429), fail(400));
    const { response, sent } = await chatWithFallbacks();
    const body = await expectGatewayError(response, 503, { errorType: "provider_server_error" });
    expect(sent().map(keyOf)).toEqual(["primary", "primary", "first-fallback", "second-fallback"]);
    expect(body.extra_fields).toMatchObject({ provider: "openai", model_requested: "gpt-4o", request_type: "chat.completion" });
    const routing = body.extra_fields.routing_info!;
    expect(routing).toMatchObject({ primary_provider: "openai", primary_model: "gpt-4o", requested_provider: "openai", requested_model: "gpt-4o" });
    expect(routing.attempts).toEqual([
      { provider: "openai", model: "gpt-4o", key: "primary", status: 503, error_type: "provider_server_error", is_fallback: false },
      { provider: "openai", model: "gpt-4o", key: "primary", status: 503, error_type: "provider_server_error", is_fallback: false },
      { provider: "mistral", model: "mistral-small", key: "first-fallback", status: 429, error_type: "provider_rate_limited", is_fallback: true },
      { provider: "groq", model: "llama-3.1-8b", key: "second-fallback", status: 400, error_type: "provider_rejected_request", is_fallback: true },
    ]);
  });

  test("a primary that fails for the caller's reasons still lets a fallback answer, and keeps its 400 when all fail", async () => {
    await gw.admin("/api/providers/openai/keys/primary", { method: "PUT", json: { value: "secret-primary", blacklisted_models: ["gpt-4o"] } });
    try {
      const rescued = await chatWithFallbacks();
      expect(rescued.response.status).toBe(200);
      expect(rescued.sent().map(keyOf)).toEqual(["first-fallback"]);
      upstream.faults.push(fail(500), fail(500));
      const failed = await chatWithFallbacks();
      const body = await expectGatewayError(failed.response, 400, { errorType: "caller_model_not_allowed", param: "model" });
      expect(body.extra_fields.routing_info!.attempts!.map((attempt) => attempt.is_fallback)).toEqual([true, true]);
    } finally {
      await gw.admin("/api/providers/openai/keys/primary", { method: "PUT", json: { value: "secret-primary" } });
    }
  });
});

describe("fallbacks are validated before anything is sent", () => {
  test("a fallback naming no configured provider is a 400 naming fallbacks[i]", async () => {
    const { response, sent } = await chatWithFallbacks(["mistral/mistral-small", "nowhere/model-x"]);
    await expectGatewayError(response, 400, { param: "fallbacks[1]" });
    expect(sent()).toHaveLength(0);
  });

  test("fallbacks that are not an array of strings are a 400 naming the field", async () => {
    await expectGatewayError((await chatWithFallbacks(undefined, { fallbacks: "mistral/x" })).response, 400, { param: "fallbacks" });
    await expectGatewayError((await chatWithFallbacks(undefined, { fallbacks: [42] })).response, 400, { param: "fallbacks[0]" });
  });
});
