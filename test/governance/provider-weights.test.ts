import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { startGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

/** Four OpenAI-compatible providers on one mock. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      openai: openAIProvider(upstream, [{ id: "o1" }]),
      groq: openAIProvider(upstream, [{ id: "g1" }]),
      xai: openAIProvider(upstream, [{ id: "x1" }]),
      cerebras: openAIProvider(upstream, [{ id: "c1" }]),
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
const PROVIDER_OF_KEY: Record<string, string> = { "Bearer sk-upstream-o1": "openai", "Bearer sk-upstream-g1": "groq", "Bearer sk-upstream-x1": "xai", "Bearer sk-upstream-c1": "cerebras" };
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
