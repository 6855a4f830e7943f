import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  const network_config = { base_url: upstream.baseUrl };
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config },
      backup: { custom_provider_config: { base_provider_type: "openai" }, keys: [{ id: "k2", value: "sk-test-2", models: ["*"] }], network_config },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

let key: string;
beforeEach(() => {
  key = `key-${crypto.randomUUID()}`;
});

const chatCalls = () => upstream.requests.filter((request) => request.path === "/v1/chat/completions").length;

function client(headers: Record<string, string> = {}) {
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: headers });
}

const ask = (content: string, headers: Record<string, string>, model = "openai/gpt-4o-mini") =>
  client(headers).chat.completions.create({ model, messages: [{ role: "user", content }] }).withResponse();

async function configureCache(config: Record<string, unknown>) {
  const response = await gw.admin("/api/plugins/response_cache", { method: "PUT", json: { config } });
  expect(response.status).toBe(200);
}

describe("exact-match cache, keyed by x-gw-cache-key", () => {
  test("without a cache key nothing is cached", async () => {
    const before = chatCalls();
    const first = await ask("uncached", {});
    const second = await ask("uncached", {});
    expect(chatCalls()).toBe(before + 2);
    expect(second.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(second.data.id).not.toBe(first.data.id);
  });

  test("the same request under the same key is answered from the cache: miss, then hit", async () => {
    const before = chatCalls();
    const miss = await ask("what is two plus two?", { "x-gw-cache-key": key });
    const hit = await ask("what is two plus two?", { "x-gw-cache-key": key });
    expect(chatCalls()).toBe(before + 1);
    expect(miss.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(hit.response.headers.get("x-gw-cache-hit")).toBe("direct");
    expect(hit.response.headers.get("x-gw-cache-id")).toBe(miss.response.headers.get("x-gw-cache-id"));
    expect(hit.data).toEqual(miss.data);
  });

  test("the key is a deterministic hash of the normalized request: field order does not matter", async () => {
    const before = chatCalls();
    const headers = { "x-gw-cache-key": key };
    const url = `${gw.url}/v1/chat/completions`;
    const first = await postJson(url, { model: "openai/gpt-4o-mini", temperature: 0.2, messages: [{ role: "user", content: "order" }], response_format: { type: "text" } }, headers);
    const second = await postJson(url, `{"response_format":{"type":"text"},"messages":[{"content":"order","role":"user"}],"temperature":0.2,"model":"openai/gpt-4o-mini"}`, headers);
    expect(await second.json()).toEqual(await first.json());
    expect(second.headers.get("x-gw-cache-hit")).toBe("direct");
    expect(chatCalls()).toBe(before + 1);
  });

  test("a different request, key, model or provider misses", async () => {
    await ask("scoped", { "x-gw-cache-key": key });
    const before = chatCalls();
    await client({ "x-gw-cache-key": key }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "scoped" }], temperature: 0.9 });
    await ask("scoped", { "x-gw-cache-key": `${key}-other` });
    await ask("scoped", { "x-gw-cache-key": key }, "openai/gpt-4o");
    await ask("scoped", { "x-gw-cache-key": key }, "backup/gpt-4o-mini");
    expect(chatCalls()).toBe(before + 4);
  });

  test("with per-model and per-provider scoping off, other models and providers share the entry", async () => {
    await configureCache({ cache_by_model: false, cache_by_provider: false });
    try {
      await ask("shared across targets", { "x-gw-cache-key": key });
      const before = chatCalls();
      const hit = await ask("shared across targets", { "x-gw-cache-key": key }, "backup/gpt-4o");
      expect(hit.response.headers.get("x-gw-cache-hit")).toBe("direct");
      expect(chatCalls()).toBe(before);
    } finally {
      await configureCache({});
    }
  });

  test("a default key from the config caches callers who send none", async () => {
    await configureCache({ default_key: key });
    try {
      await ask("default key", {});
      const hit = await ask("default key", {});
      expect(hit.response.headers.get("x-gw-cache-hit")).toBe("direct");
    } finally {
      await configureCache({});
    }
  });

  test("x-gw-cache-no-store looks up but does not store", async () => {
    const before = chatCalls();
    await ask("not kept", { "x-gw-cache-key": key, "x-gw-cache-no-store": "true" });
    const second = await ask("not kept", { "x-gw-cache-key": key });
    const third = await ask("not kept", { "x-gw-cache-key": key, "x-gw-cache-no-store": "true" });
    expect(chatCalls()).toBe(before + 2);
    expect(second.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(third.response.headers.get("x-gw-cache-hit")).toBe("direct");
  });

  test("error responses are not cached", async () => {
    upstream.faults.push({ kind: "status", status: 400, message: "bad luck" });
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "flaky" }] }, { "x-gw-cache-key": key }), 400);
    const retried = await ask("flaky", { "x-gw-cache-key": key });
    expect(retried.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(retried.data.choices[0]!.message.content).toBe("echo: flaky");
  });

  test("a malformed x-gw-cache-ttl is a 400 naming the header", async () => {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "x" }] }, { "x-gw-cache-key": key, "x-gw-cache-ttl": "soon" });
    await expectGatewayError(response, 400, { param: "x-gw-cache-ttl" });
  });

  test("an x-gw-cache-ttl past a century is a 400, not an entry the store cannot hold", async () => {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "forever" }] }, { "x-gw-cache-key": key, "x-gw-cache-ttl": "99999999999d" });
    await expectGatewayError(response, 400, { param: "x-gw-cache-ttl" });
    const kept = await ask("for a century", { "x-gw-cache-key": key, "x-gw-cache-ttl": "36500d" });
    expect(kept.response.status).toBe(200);
    const again = await ask("for a century", { "x-gw-cache-key": key });
    expect(again.response.headers.get("x-gw-cache-hit")).toBe("direct");
  });
});

describe("expiry", () => {
  afterEach(() => setSystemTime());

  test("an entry expires after the configured TTL", async () => {
    await configureCache({ ttl_seconds: 120 });
    try {
      const start = Date.now();
      await ask("short-lived", { "x-gw-cache-key": key });
      setSystemTime(start + 119_000);
      expect((await ask("short-lived", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBe("direct");
      setSystemTime(start + 121_000);
      const before = chatCalls();
      expect((await ask("short-lived", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBeNull();
      expect(chatCalls()).toBe(before + 1);
    } finally {
      await configureCache({});
    }
  });

  test("x-gw-cache-ttl sets one entry's lifetime (seconds, or with a unit)", async () => {
    const start = Date.now();
    await ask("one minute", { "x-gw-cache-key": key, "x-gw-cache-ttl": "1m" });
    setSystemTime(start + 59_000);
    expect((await ask("one minute", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBe("direct");
    setSystemTime(start + 61_000);
    expect((await ask("one minute", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBeNull();
  });
});

describe("streams are cached and replayed as streams", () => {
  async function streamed(content: string) {
    const { data: stream, response } = await client({ "x-gw-cache-key": key })
      .chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, response };
  }

  test("the second stream comes from the cache, chunk for chunk", async () => {
    const before = chatCalls();
    const first = await streamed("stream me a few words");
    const second = await streamed("stream me a few words");
    expect(chatCalls()).toBe(before + 1);
    expect(second.response.headers.get("x-gw-cache-hit")).toBe("direct");
    expect(second.response.headers.get("content-type")).toContain("text/event-stream");
    expect(second.chunks.length).toBeGreaterThan(3);
    expect(second.chunks).toEqual(first.chunks);
    expect(second.chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("echo: stream me a few words");
  });

  test("a streamed and a non-streamed request do not share an entry", async () => {
    await streamed("either way");
    const plain = await ask("either way", { "x-gw-cache-key": key });
    expect(plain.response.headers.get("x-gw-cache-hit")).toBeNull();
    expect(plain.data.object).toBe("chat.completion");
  });
});

describe("DELETE /api/cache/clear/{cacheId} and /api/cache/clear-by-key/{cacheKey}", () => {
  test("clearing one entry by its id makes the next request miss", async () => {
    const miss = await ask("clear me", { "x-gw-cache-key": key });
    const cacheId = miss.response.headers.get("x-gw-cache-id")!;
    const cleared = await gw.admin(`/api/cache/clear/${cacheId}`, { method: "DELETE" });
    expect(await cleared.json()).toEqual({ message: "Cache entry cleared successfully" });
    expect((await ask("clear me", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBeNull();
    await expectGatewayError(await gw.admin(`/api/cache/clear/${cacheId}-gone`, { method: "DELETE" }), 404, { errorType: "caller_cache_entry_not_found" });
  });

  test("clearing by key drops every entry under it and no other", async () => {
    const otherKey = `${key}-kept`;
    await ask("first", { "x-gw-cache-key": key });
    await ask("second", { "x-gw-cache-key": key });
    await ask("first", { "x-gw-cache-key": otherKey });
    const cleared = await gw.admin(`/api/cache/clear-by-key/${encodeURIComponent(key)}`, { method: "DELETE" });
    expect(await cleared.json()).toEqual({ message: "Cache cleared successfully", deleted: 2 });
    expect((await ask("first", { "x-gw-cache-key": key })).response.headers.get("x-gw-cache-hit")).toBeNull();
    expect((await ask("first", { "x-gw-cache-key": otherKey })).response.headers.get("x-gw-cache-hit")).toBe("direct");
  });

  test("the cache routes need management credentials", async () => {
    expect((await fetch(`${gw.url}/api/cache/clear-by-key/${key}`, { method: "DELETE" })).status).toBe(401);
  });
});

describe("logs record the cache hit type", () => {
  test("a direct hit is logged as such", async () => {
    await ask("logged hit", { "x-gw-cache-key": key });
    const hit = await ask("logged hit", { "x-gw-cache-key": key });
    // Stopping flushes the request log queue; the restarted gateway reads what was written.
    await gw.stop();
    gw = await gw.restart();
    const response = await gw.admin("/api/logs?cache_hit_types=direct&limit=100");
    const { logs } = (await response.json()) as { logs: Array<{ id: string; cache_hit_type: string; cost: number | null }> };
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.every((log) => log.cache_hit_type === "direct")).toBe(true);
    expect(logs.map((log) => log.cost)).toContain(0);
    expect(hit.response.headers.get("x-gw-cache-hit")).toBe("direct");
  });
});
