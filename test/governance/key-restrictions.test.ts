import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

/** Two providers on one mock, told apart by the upstream key each sends. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      openai: openAIProvider(upstream, [{ id: "k1" }, { id: "k2" }]),
      groq: openAIProvider(upstream, [{ id: "g1" }]),
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const upstreamKeyOfLastCall = () => upstream.requests.at(-1)!.headers.get("authorization")!.replace("Bearer sk-upstream-", "");

describe("allowed providers and models", () => {
  test("a provider the key does not list is refused", async () => {
    const key = await createVirtualKey(gw, { name: "openai-only", provider_configs: [{ provider: "openai" }] });
    await expectGatewayError(await chat(gw, key.value, { model: "groq/llama-3.1-8b-instant" }), 403, { errorType: "policy_provider_not_allowed", param: "model" });
    expect((await chat(gw, key.value)).status).toBe(200);
  });

  test("a model the provider config does not allow is refused, a fallback included", async () => {
    const key = await createVirtualKey(gw, { name: "mini-only", provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }] });
    await expectGatewayError(await chat(gw, key.value, { model: "openai/gpt-4o" }), 403, { errorType: "policy_model_not_allowed", param: "model" });
    await expectGatewayError(await chat(gw, key.value, { fallbacks: ["openai/o3"] }), 403, { errorType: "policy_model_not_allowed", param: "fallbacks[0]" });
    expect((await chat(gw, key.value)).status).toBe(200);
  });

  test("\"*\" among a provider config's allowed models allows every model of that provider", async () => {
    const key = await createVirtualKey(gw, { name: "openai-any-model", provider_configs: [{ provider: "openai", allowed_models: ["*"] }] });
    expect((await chat(gw, key.value, { model: "openai/o3" })).status).toBe(200);
    await expectGatewayError(await chat(gw, key.value, { model: "groq/llama-3.1-8b-instant" }), 403, { errorType: "policy_provider_not_allowed" });
  });

  test("a key without provider configs may use every provider", async () => {
    const key = await createVirtualKey(gw, { name: "unrestricted" });
    expect((await chat(gw, key.value, { model: "groq/llama-3.1-8b-instant" })).status).toBe(200);
  });
});

describe("allowed provider keys (key_ids)", () => {
  test("only the listed keys are used", async () => {
    const key = await createVirtualKey(gw, { name: "k2-only", provider_configs: [{ provider: "openai", key_ids: ["k2"] }] });
    const used = new Set<string>();
    for (let index = 0; index < 8; index++) {
      expect((await chat(gw, key.value)).status).toBe(200);
      used.add(upstreamKeyOfLastCall());
    }
    expect([...used]).toEqual(["k2"]);
  });

  test("x-gw-api-key-id pins a key inside the list, and any key where the virtual key restricts none", async () => {
    const listed = await createVirtualKey(gw, { name: "k1-k2-pinned", provider_configs: [{ provider: "openai", key_ids: ["k1", "k2"] }] });
    const open = await createVirtualKey(gw, { name: "openai-unpinned", provider_configs: [{ provider: "openai" }] });
    const unrestricted = await createVirtualKey(gw, { name: "no-configs-pinned" });
    for (const [key, pinned] of [[listed, "k2"], [listed, "k1"], [open, "k2"], [unrestricted, "k1"]] as const) {
      const response = await chat(gw, key.value, {}, { "x-gw-api-key-id": pinned });
      expect({ pinned, status: response.status }).toEqual({ pinned, status: 200 });
      expect(upstreamKeyOfLastCall()).toBe(pinned);
    }
  });

  test("x-gw-api-key-id cannot pin a key outside the list", async () => {
    const key = await createVirtualKey(gw, { name: "k2-pinned", provider_configs: [{ provider: "openai", key_ids: ["k2"] }] });
    await expectGatewayError(await chat(gw, key.value, {}, { "x-gw-api-key-id": "k1" }), 403, { errorType: "policy_key_not_allowed", param: "x-gw-api-key-id" });
  });
});

describe("provider weights choose among the key's providers when the model names none", () => {
  test("a bare model goes to the provider with weight; the other is its fallback", async () => {
    const key = await createVirtualKey(gw, { name: "weighted", provider_configs: [{ provider: "openai", weight: 0 }, { provider: "groq", weight: 1 }] });
    for (let index = 0; index < 5; index++) {
      const response = await chat(gw, key.value, { model: "gpt-4o-mini" });
      expect(response.headers.get("x-gw-provider")).toBe("groq");
    }
    upstream.faults.push({ kind: "status", status: 400, message: "groq refuses" });
    const fallback = await chat(gw, key.value, { model: "gpt-4o-mini" });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get("x-gw-provider")).toBe("openai");
  });

  test("a model that names its provider is not re-routed by weight", async () => {
    const key = await createVirtualKey(gw, { name: "weighted-named", provider_configs: [{ provider: "openai", weight: 0 }, { provider: "groq", weight: 1 }] });
    const response = await chat(gw, key.value, { model: "openai/gpt-4o-mini" });
    expect(response.headers.get("x-gw-provider")).toBe("openai");
  });

  test("without a virtual key the same bare model names no provider: 400", async () => {
    await expectGatewayError(await chat(gw, undefined, { model: "gpt-4o-mini" }), 400, { param: "model" });
  });
});
