import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { type Fault, type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

let upstream: MockOpenAI;
let gw: TestGateway;
const clock = new TestClock();

const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");
/** Per key, what the mock answers it for now: a fault the test sets, or the normal reply. */
const faultOfKey = new Map<string, Fault>();

/** A healthy key of weight 0 takes a request only when the first key cannot: each request tries the first key first. */
const twoKeys = (name: string, health: Record<string, unknown> = {}) => ({
  keys: [
    { id: `${name}-first`, value: `secret-${name}-first`, weight: 1 },
    { id: `${name}-spare`, value: `secret-${name}-spare`, weight: 0 },
  ],
  network_config: { base_url: upstream.baseUrl, health },
});
const oneKey = (name: string, health: Record<string, unknown> = {}) => ({ keys: [{ id: `${name}-only`, value: `secret-${name}-only` }], network_config: { base_url: upstream.baseUrl, health } });

beforeAll(async () => {
  upstream = startMockOpenAI();
  upstream.onRequest = (request) => {
    const fault = faultOfKey.get(keyOf(request) ?? "");
    if (fault) upstream.faults.unshift(fault);
  };
  gw = await startGateway(
    {
      telemetry: { metrics_allowlist: ["127.0.0.1", "::1"] },
      providers: {
        openai: twoKeys("openai"),
        groq: twoKeys("groq"),
        perplexity: twoKeys("perplexity"),
        mistral: oneKey("mistral", { cooldown_seconds: 45, panic_threshold: 0 }),
        deepseek: oneKey("deepseek", { failure_threshold: 2 }),
        cerebras: oneKey("cerebras", { enabled: false, failure_threshold: 1 }),
        local: { custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl, health: { failure_threshold: 2, panic_threshold: 0 } } },
        xai: {
          keys: [
            { id: "left", value: "secret-left" },
            { id: "right", value: "secret-right" },
          ],
          network_config: { base_url: upstream.baseUrl, health: { strategy: "least_busy" } },
        },
        fireworks: {
          keys: [
            { id: "fast", value: "secret-fast" },
            { id: "slow", value: "secret-slow" },
          ],
          network_config: { base_url: upstream.baseUrl, health: { strategy: "least_latency" } },
        },
      },
    },
    { runtime: { actorClock: clock } },
  );
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

async function chat(model: string, extra: Record<string, unknown> = {}) {
  const start = upstream.requests.length;
  const response = await postJson(`${gw.url}/v1/chat/completions`, { model, messages: [{ role: "user", content: "hello" }], ...extra });
  return { response, keys: () => upstream.requests.slice(start).map(keyOf) };
}

async function keyHealth(provider: string, keyId: string) {
  const body = (await (await gw.admin(`/api/providers/${provider}`)).json()) as { keys: Array<{ id: string; health: { state: string; reopens_at?: string } }> };
  return body.keys.find((key) => key.id === keyId)!.health;
}

const rateLimited = (headers: Record<string, string> = {}): Fault => ({ kind: "status", status: 429, headers });

describe("a key that keeps failing is left out until its cooldown ends", () => {
  test("five 429s open the key; the next requests go to the other key without touching it; after the cooldown one trial closes it", async () => {
    const warned: string[] = [];
    const spy = spyOn(console, "warn").mockImplementation((...parts: unknown[]) => void warned.push(parts.map(String).join(" ")));
    faultOfKey.set("openai-first", rateLimited());
    for (let i = 0; i < 5; i++) {
      const { response, keys } = await chat("openai/gpt-4o");
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(keys()).toEqual(["openai-first", "openai-spare"]);
    }
    const opened = await keyHealth("openai", "openai-first");
    expect(opened.state).toBe("open");
    expect(Date.parse(opened.reopens_at!)).toBe(clock.now() + 30_000);

    for (let i = 0; i < 3; i++) {
      const { response, keys } = await chat("openai/gpt-4o");
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(keys()).toEqual(["openai-spare"]);
    }
    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
    expect(valueOf(metrics, "gateway_key_breaker_state", { provider: "openai", key: "openai-first" })).toBe(2);
    expect(valueOf(metrics, "gateway_key_breaker_state", { provider: "openai", key: "openai-spare" })).toBe(0);
    spy.mockRestore();
    expect(warned.filter((line) => line.includes("'openai-first'"))).toEqual([expect.stringContaining("opened after repeated failures")]);

    faultOfKey.delete("openai-first");
    await clock.timerSet(30_000);
    clock.increment(30_000);
    expect((await keyHealth("openai", "openai-first")).state).toBe("half_open");
    const trial = await chat("openai/gpt-4o");
    expect(trial.response.status).toBe(200);
    await trial.response.arrayBuffer();
    expect(trial.keys()).toEqual(["openai-first"]);
    expect((await keyHealth("openai", "openai-first")).state).toBe("closed");
  });

  test("a failed trial opens the key again for twice as long", async () => {
    faultOfKey.set("groq-first", rateLimited());
    for (let i = 0; i < 5; i++) await (await chat("groq/llama")).response.arrayBuffer();
    await clock.timerSet(30_000);
    clock.increment(30_000);
    const trial = await chat("groq/llama");
    await trial.response.arrayBuffer();
    expect(trial.keys()).toEqual(["groq-first", "groq-spare"]);
    const reopened = await keyHealth("groq", "groq-first");
    expect(reopened.state).toBe("open");
    expect(Date.parse(reopened.reopens_at!)).toBe(clock.now() + 60_000);
    faultOfKey.delete("groq-first");
  });

  test("retry-after: 7 on the 429 that opens the key makes a 7 s cooldown", async () => {
    faultOfKey.set("deepseek-only", rateLimited({ "retry-after": "7" }));
    for (let i = 0; i < 2; i++) await (await chat("deepseek/chat")).response.arrayBuffer();
    expect(Date.parse((await keyHealth("deepseek", "deepseek-only")).reopens_at!)).toBe(clock.now() + 7_000);
    await clock.timerSet(7_000);
    faultOfKey.delete("deepseek-only");
    clock.increment(6_999);
    expect((await keyHealth("deepseek", "deepseek-only")).state).toBe("open");
    clock.increment(1);
    expect((await keyHealth("deepseek", "deepseek-only")).state).toBe("half_open");
    await (await chat("deepseek/chat")).response.arrayBuffer();
    expect((await keyHealth("deepseek", "deepseek-only")).state).toBe("closed");
  });

  test("failures further apart than the window do not add up", async () => {
    faultOfKey.set("perplexity-first", { kind: "status", status: 502 });
    for (let i = 0; i < 4; i++) await (await chat("perplexity/sonar")).response.arrayBuffer();
    expect((await keyHealth("perplexity", "perplexity-first")).state).toBe("closed");
    clock.increment(60_000);
    const late = await chat("perplexity/sonar");
    await late.response.arrayBuffer();
    expect(late.response.status).toBe(502);
    expect(late.keys()).toEqual(["perplexity-first"]);
    expect((await keyHealth("perplexity", "perplexity-first")).state).toBe("closed");
    faultOfKey.delete("perplexity-first");
  });

  test("the caller's own 400s never open a key", async () => {
    faultOfKey.set("mistral-only", { kind: "status", status: 400 });
    for (let i = 0; i < 8; i++) {
      const { response, keys } = await chat("mistral/small");
      expect(response.status).toBe(400);
      await response.arrayBuffer();
      expect(keys()).toEqual(["mistral-only"]);
    }
    expect((await keyHealth("mistral", "mistral-only")).state).toBe("closed");
    faultOfKey.delete("mistral-only");
  });

  test("a provider whose breakers are switched off keeps sending to its failing key", async () => {
    faultOfKey.set("cerebras-only", { kind: "status", status: 503 });
    for (let i = 0; i < 4; i++) {
      const { response, keys } = await chat("cerebras/llama");
      expect(response.status).toBe(503);
      await response.arrayBuffer();
      expect(keys()).toEqual(["cerebras-only"]);
    }
    expect((await keyHealth("cerebras", "cerebras-only")).state).toBe("closed");
    faultOfKey.delete("cerebras-only");
  });
});

describe("a target whose keys are all open", () => {
  test("goes to the fallback at once, and without one answers 503 naming the provider, when it reopens, and retry-after", async () => {
    faultOfKey.set("mistral-only", { kind: "status", status: 500 });
    for (let i = 0; i < 5; i++) await (await chat("mistral/small")).response.arrayBuffer();
    faultOfKey.delete("mistral-only");
    const reopensAt = (await keyHealth("mistral", "mistral-only")).reopens_at!;
    expect(Date.parse(reopensAt)).toBe(clock.now() + 45_000);

    const rescued = await chat("mistral/small", { fallbacks: ["openai/gpt-4o"] });
    expect(rescued.response.status).toBe(200);
    expect(rescued.response.headers.get("x-gw-provider")).toBe("openai");
    await rescued.response.arrayBuffer();
    expect(rescued.keys()).toEqual(["openai-first"]);

    const refused = await chat("mistral/small");
    expect(refused.keys()).toEqual([]);
    expect(refused.response.headers.get("retry-after")).toBe("45");
    const body = await expectGatewayError(refused.response, 503, { errorType: "provider_keys_open" });
    expect(body.error.message).toContain("'mistral'");
    expect(body.error.message).toContain(reopensAt);
    expect((body.extra_fields as Record<string, unknown>).reopens_at).toBe(reopensAt);
    expect(body.extra_fields.routing_info?.attempts).toEqual([{ provider: "mistral", model: "small", status: 503, error_type: "provider_keys_open", is_fallback: false }]);
  });
});

test("a keyless provider has one breaker, its own", async () => {
  faultOfKey.set("", { kind: "status", status: 503 });
  for (let i = 0; i < 2; i++) await (await chat("local/llama")).response.arrayBuffer();
  faultOfKey.delete("");
  const provider = (await (await gw.admin("/api/providers/local")).json()) as { health: { state: string } };
  expect(provider.health.state).toBe("open");
  const refused = await chat("local/llama");
  expect(refused.keys()).toEqual([]);
  await expectGatewayError(refused.response, 503, { errorType: "provider_keys_open" });
  const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
  expect(valueOf(metrics, "gateway_key_breaker_state", { provider: "local", key: "" })).toBe(2);
});

test("least_latency sends most requests to the faster key and still samples the slower one", async () => {
  faultOfKey.set("slow", { kind: "delay", ms: 50 });
  const counts: Record<string, number> = { fast: 0, slow: 0 };
  for (let i = 0; i < 40; i++) {
    const { response, keys } = await chat("fireworks/llama");
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    for (const key of keys()) counts[key!]!++;
  }
  faultOfKey.delete("slow");
  expect(counts.fast! + counts.slow!).toBe(40);
  expect(counts.fast!).toBeGreaterThan(30);
  expect(counts.slow!).toBeGreaterThanOrEqual(2);
  const body = (await (await gw.admin("/api/providers/fireworks")).json()) as { keys: Array<{ id: string; health: { latency_ms: number } }> };
  const latency = Object.fromEntries(body.keys.map((key) => [key.id, key.health.latency_ms]));
  expect(latency.slow!).toBeGreaterThan(latency.fast! + 30);
});

test("least_busy sends a request to the key with fewer requests under way", async () => {
  faultOfKey.set("left", { kind: "delay", ms: 100 });
  faultOfKey.set("right", { kind: "delay", ms: 100 });
  for (let i = 0; i < 5; i++) {
    const start = upstream.requests.length;
    for (const { response } of await Promise.all([chat("xai/grok"), chat("xai/grok")])) {
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(upstream.requests.slice(start).map(keyOf).toSorted()).toEqual(["left", "right"]);
  }
  faultOfKey.clear();
});
