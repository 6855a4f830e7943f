import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { startGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, createVirtualKey, openAIProvider } from "./support";

/** The provider that answered each of `count` requests for a bare model. */
async function providersDrawn(key: string, count: number, body: Record<string, unknown> = { model: "gpt-4o-mini" }): Promise<Record<string, number>> {
  const drawn: Record<string, number> = {};
  for (let index = 0; index < count; index++) {
    const response = await chat(gw, key, body);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const provider = response.headers.get("x-gw-provider")!;
    drawn[provider] = (drawn[provider] ?? 0) + 1;
  }
  return drawn;
}

interface LoggedRequest {
  provider: string;
  routing_engine_used: string | null;
  attempts: Array<{ provider: string; is_fallback: boolean }>;
}

/** The request log's rows for a virtual key, once `count` are written. */
async function loggedRequests(keyId: string, count: number): Promise<LoggedRequest[]> {
  const read = async () => ((await (await gw.admin(`/api/logs?virtual_key_ids=${keyId}&limit=100`)).json()) as { logs: LoggedRequest[] }).logs;
  return eventually(read, (logs) => logs.length >= count);
}

let upstream: MockOpenAI;
let gw: TestGateway;

/** Four OpenAI-compatible providers on one mock. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      // o2 serves only gpt-4o: a config limited to it cannot serve gpt-4o-mini.
      openai: openAIProvider(upstream, [
        { id: "o1", models: ["gpt-4o-mini", "gpt-4o"] },
        { id: "o2", models: ["gpt-4o"] },
      ]),
      groq: openAIProvider(upstream, [{ id: "g1" }]),
      xai: openAIProvider(upstream, [{ id: "x1" }]),
      cerebras: openAIProvider(upstream, [{ id: "c1" }]),
      // A local server needs no key; a hosted provider without keys cannot serve anything.
      vllm: { keys: [], network_config: { base_url: upstream.baseUrl } },
      perplexity: { keys: [], network_config: { base_url: upstream.baseUrl } },
    },
  });
});
afterEach(() => {
  upstream.faults.length = 0;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** Listed neither heaviest first nor lightest first, so the order tried cannot come from the list. */
const WEIGHTS = [
  { provider: "groq", weight: 2 },
  { provider: "cerebras", weight: 1 },
  { provider: "openai", weight: 4 },
  { provider: "xai", weight: 3 },
];
const PROVIDER_OF_KEY: Record<string, string> = { "Bearer sk-upstream-o1": "openai", "Bearer sk-upstream-o2": "openai", "Bearer sk-upstream-g1": "groq", "Bearer sk-upstream-x1": "xai", "Bearer sk-upstream-c1": "cerebras" };
const weightOf = (provider: string) => WEIGHTS.find((config) => config.provider === provider)!.weight;

describe("a bare model on a key with several weighted providers", () => {
  test("after the provider drawn by weight, the others are tried heaviest first (routing_info.attempts)", async () => {
    const key = await createVirtualKey(gw, { name: "four-providers", provider_configs: WEIGHTS });
    const primaries = new Set<string>();
    for (let round = 0; round < 12; round++) {
      for (let fault = 0; fault < WEIGHTS.length; fault++) upstream.faults.push({ kind: "status", status: 400, message: "refused" });
      const body = await expectGatewayError(await chat(gw, key.value, { model: "gpt-4o-mini" }), 400);
      const tried = body.extra_fields.routing_info!.attempts!.map((attempt) => attempt.provider);
      const [primary, ...fallbacks] = tried;
      primaries.add(primary!);
      expect(tried.toSorted()).toEqual(WEIGHTS.map((config) => config.provider).toSorted());
      expect(fallbacks).toEqual(fallbacks.toSorted((a, b) => weightOf(b) - weightOf(a)));
      expect(body.extra_fields.routing_info!.attempts!.map((attempt) => attempt.is_fallback)).toEqual([false, true, true, true]);
    }
    // Twelve draws at 4:3:2:1 land on a single provider with a probability below 0.1 %.
    expect(primaries.size).toBeGreaterThan(1);
  });

  test("when the drawn provider refuses, the heaviest of the others answers", async () => {
    const key = await createVirtualKey(gw, { name: "first-fallback-answers", provider_configs: WEIGHTS });
    for (let round = 0; round < 6; round++) {
      upstream.faults.push({ kind: "status", status: 400, message: "refused" });
      const before = upstream.requests.length;
      const response = await chat(gw, key.value, { model: "gpt-4o-mini" });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      const [drawn, answering] = upstream.requests.slice(before).map((request) => PROVIDER_OF_KEY[request.headers.get("authorization")!]);
      const heaviestOther = WEIGHTS.filter((config) => config.provider !== drawn).toSorted((a, b) => b.weight - a.weight)[0]!.provider;
      expect(answering).toBe(heaviestOther);
      expect(response.headers.get("x-gw-provider")).toBe(heaviestOther);
    }
  });
});

describe("which provider a bare model goes to", () => {
  test("draws follow the weights: 400 draws at 4:3:2:1 land within five standard deviations of 160:120:80:40", async () => {
    const key = await createVirtualKey(gw, { name: "four-to-one", provider_configs: WEIGHTS });
    const draws = 400;
    const drawn = await providersDrawn(key.value, draws);
    for (const { provider, weight } of WEIGHTS) {
      const p = weight / 10;
      expect({ provider, off: Math.abs((drawn[provider] ?? 0) - draws * p) < 5 * Math.sqrt(draws * p * (1 - p)) }).toEqual({ provider, off: true });
    }
  });

  test("providers all of weight 0 are drawn alike", async () => {
    const key = await createVirtualKey(gw, { name: "all-zero", provider_configs: [{ provider: "openai", weight: 0 }, { provider: "groq", weight: 0 }] });
    expect(Object.keys(await providersDrawn(key.value, 40)).toSorted()).toEqual(["groq", "openai"]);
  });

  test("a provider whose config does not allow the model is never drawn, however heavy", async () => {
    const key = await createVirtualKey(gw, { name: "heavy-but-4o-only", provider_configs: [{ provider: "openai", weight: 100, allowed_models: ["gpt-4o"] }, { provider: "groq", weight: 1 }] });
    expect(await providersDrawn(key.value, 10)).toEqual({ groq: 10 });
  });

  test("a provider serves a bare model when one of the keys the config allows lists it", async () => {
    const limited = await createVirtualKey(gw, { name: "o2-only", provider_configs: [{ provider: "openai", weight: 100, key_ids: ["o2"] }, { provider: "groq", weight: 1 }] });
    expect(await providersDrawn(limited.value, 10)).toEqual({ groq: 10 });
    expect((await providersDrawn(limited.value, 10, { model: "gpt-4o" })).openai).toBeGreaterThan(0);
    const anyKey = await createVirtualKey(gw, { name: "any-openai-key", provider_configs: [{ provider: "openai", weight: 100 }, { provider: "groq", weight: 1 }] });
    expect((await providersDrawn(anyKey.value, 10)).openai).toBeGreaterThan(0);
  });

  // A provider that cannot serve the model is dropped before any request: drawn by mistake, it leaves the answer marked as a fallback's.
  test("the log shows each bare model sent straight to a provider that serves it, not as a fallback after one whose allowed keys or missing keys cannot", async () => {
    const limited = await createVirtualKey(gw, { name: "o2-only-logged", provider_configs: [{ provider: "openai", weight: 100, key_ids: ["o2"] }, { provider: "groq", weight: 1 }] });
    const keyless = await createVirtualKey(gw, { name: "keyless-logged", provider_configs: [{ provider: "vllm", weight: 1 }, { provider: "perplexity", weight: 100 }] });
    await providersDrawn(limited.value, 5);
    await providersDrawn(keyless.value, 5, { model: "llama-3.1-8b" });
    for (const [key, provider] of [
      [limited, "groq"],
      [keyless, "vllm"],
    ] as const) {
      const logs = await loggedRequests(key.id, 5);
      expect(logs.map((log) => ({ provider: log.provider, engine: log.routing_engine_used, tried: log.attempts.map((attempt) => [attempt.provider, attempt.is_fallback]) }))).toEqual(Array(5).fill({ provider, engine: "governance", tried: [[provider, false]] }));
    }
  });

  test("on the mount of a provider that is not configured, a bare model goes by the key's weights", async () => {
    const key = await createVirtualKey(gw, { name: "unconfigured-mount", provider_configs: [{ provider: "groq", weight: 1 }] });
    const response = await fetch(`${gw.url}/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-vk": key.value, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "llama-3.1-8b", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("groq");
    expect(((await response.json()) as { type: string }).type).toBe("message");
  });

  test("a bare model with a slash that names no provider is still routed by weight", async () => {
    const key = await createVirtualKey(gw, { name: "slashed-model", provider_configs: [{ provider: "openai", weight: 0 }, { provider: "groq", weight: 1 }] });
    expect(await providersDrawn(key.value, 3, { model: "meta-llama/llama-3.1-8b" })).toEqual({ groq: 3 });
    expect(upstream.requests.at(-1)!.body.model).toBe("meta-llama/llama-3.1-8b");
    // Without a slash, nothing in the name counts as a provider, not even a provider's name and one more character.
    expect(await providersDrawn(key.value, 1, { model: "openai1" })).toEqual({ groq: 1 });
  });

  test("on a provider's mount a bare model goes to that provider, whatever the weights", async () => {
    const key = await createVirtualKey(gw, { name: "mounted", provider_configs: [{ provider: "openai", weight: 0 }, { provider: "groq", weight: 1 }] });
    const response = await fetch(`${gw.url}/openai/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-vk": key.value },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("openai");
  });

  test("when none of the key's providers serves the bare model, the key's policy refuses it: 403 on model", async () => {
    const key = await createVirtualKey(gw, { name: "serves-nothing", provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o"] }] });
    await expectGatewayError(await chat(gw, key.value, { model: "gpt-4o-mini" }), 403, { param: "model", errorType: "policy_model_not_allowed" });
  });

  test("a local server without keys serves a bare model; a hosted provider without keys does not", async () => {
    const key = await createVirtualKey(gw, { name: "local-and-keyless", provider_configs: [{ provider: "vllm", weight: 1 }, { provider: "perplexity", weight: 100 }] });
    expect(await providersDrawn(key.value, 5, { model: "llama-3.1-8b" })).toEqual({ vllm: 5 });
  });

  test("a client's fallback that names no provider is a 400 on that fallback", async () => {
    const key = await createVirtualKey(gw, { name: "bad-fallback", provider_configs: WEIGHTS });
    await expectGatewayError(await chat(gw, key.value, { model: "gpt-4o-mini", fallbacks: ["groq/llama-3.1-8b", "nowhere/model-x"] }), 400, { param: "fallbacks[1]" });
  });
});
