import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAIPlatform, startMockOpenAIPlatform } from "../support/mock-openai-platform";

let upstream: MockOpenAIPlatform;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockOpenAIPlatform();
  upstream.keys.set("sk-good-key-0001", ["gpt-4o-mini", "gpt-4.1"]);
  gw = await startGateway();
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

interface KeyBody {
  id: string;
  status: string;
  description: string;
  reachable_models?: string[];
}

const json = async <T>(response: Response, status = 200): Promise<T> => {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  return JSON.parse(text) as T;
};
const apiModels = async (provider?: string) =>
  (await json<{ models: Array<{ id: string; key_ids: string[] }>; count: number }>(await gw.admin(`/api/models${provider ? `?provider=${provider}` : ""}`))).models;
const v1Models = async () => (await client.models.list()).data.map((model) => model.id);
const refresh = (provider: string, keyId: string) => gw.admin(`/api/providers/${provider}/keys/${keyId}/refresh-models`, { method: "POST" });

describe("key health: listing the provider's models with each key", () => {
  test("a key created through the API is checked at once: success, with what it reaches listed by /api/models and /v1/models", async () => {
    const created = await json<{ keys: KeyBody[] }>(await gw.admin("/api/providers", { method: "POST", json: { provider: "openai", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "good", value: "sk-good-key-0001" }] } }), 201);
    expect(created.keys[0]).toMatchObject({ status: "success", description: "listed 2 models" });
    const listing = upstream.requests.findLast((request) => request.path === "/v1/models")!;
    expect(listing.headers.get("authorization")).toBe("Bearer sk-good-key-0001");
    expect(await apiModels("openai")).toEqual([
      { id: "openai/gpt-4o-mini", provider: "openai", model: "gpt-4o-mini", key_ids: ["good"] },
      { id: "openai/gpt-4.1", provider: "openai", model: "gpt-4.1", key_ids: ["good"] },
    ] as never);
    expect(await v1Models()).toEqual(expect.arrayContaining(["openai/gpt-4o-mini", "openai/gpt-4.1"]));
  });

  test("a key the provider refuses is list_models_failed, its description says why, and it adds no models", async () => {
    const key = await json<KeyBody>(await gw.admin("/api/providers/openai/keys", { method: "POST", json: { id: "bad", value: "sk-revoked-0002", models: ["*"] } }), 201);
    expect(key.status).toBe("list_models_failed");
    expect(key.description).toContain("401");
    expect(key.description).toContain("Incorrect API key provided");
    expect(key.description).not.toContain("sk-revoked-0002");
    expect((await apiModels("openai")).every((model) => !model.key_ids.includes("bad"))).toBe(true);
  });

  test("fixing the key's value through PUT turns it to success; refresh-models picks up what the provider added", async () => {
    upstream.keys.set("sk-fixed-0003", ["o3-mini"]);
    const fixed = await json<KeyBody>(await gw.admin("/api/providers/openai/keys/bad", { method: "PUT", json: { value: "sk-fixed-0003", models: ["*"] } }));
    expect(fixed).toMatchObject({ status: "success", description: "listed 1 model" });
    expect(await v1Models()).toContain("openai/o3-mini");

    upstream.keys.set("sk-fixed-0003", ["o3-mini", "o4-mini"]);
    const refreshed = await json<KeyBody>(await refresh("openai", "bad"));
    expect(refreshed).toMatchObject({ id: "bad", status: "success", reachable_models: ["o3-mini", "o4-mini"] });
    expect(await v1Models()).toContain("openai/o4-mini");
    expect((await json<KeyBody>(await gw.admin("/api/providers/openai/keys/bad"))).status).toBe("success");
  });

  test("a key the provider stops accepting turns list_models_failed on refresh, and its models leave the listings", async () => {
    upstream.keys.delete("sk-fixed-0003");
    const refreshed = await json<KeyBody>(await refresh("openai", "bad"));
    expect(refreshed).toMatchObject({ status: "list_models_failed", reachable_models: [] });
    expect(await v1Models()).not.toContain("openai/o4-mini");
    expect(await v1Models()).toContain("openai/gpt-4o-mini");
  });

  test("an unreachable provider is list_models_failed with the network failure as description", async () => {
    const body = await json<{ keys: KeyBody[] }>(await gw.admin("/api/providers", { method: "POST", json: { provider: "groq", network_config: { base_url: "http://127.0.0.1:9/v1" }, keys: [{ id: "nowhere", value: "gsk-1" }] } }), 201);
    expect(body.keys[0]!.status).toBe("list_models_failed");
    expect(body.keys[0]!.description).toContain("could not be reached");
  });

  test("a key with a whitelist lists only the reachable models it allows; a disabled key lists none", async () => {
    upstream.keys.set("sk-narrow-0004", ["gpt-4o-mini", "gpt-4.1", "dall-e-3"]);
    await json(await gw.admin("/api/providers/openai/keys", { method: "POST", json: { id: "narrow", value: "sk-narrow-0004", models: ["regex:dall-e.*"] } }), 201);
    const narrow = (await apiModels("openai")).filter((model) => model.key_ids.includes("narrow")).map((model) => model.id);
    expect(narrow).toEqual(["openai/dall-e-3"]);
    await json(await gw.admin("/api/providers/openai/keys/narrow", { method: "PUT", json: { value: "sk-narrow-0004", models: ["regex:dall-e.*"], enabled: false } }));
    expect(await v1Models()).not.toContain("openai/dall-e-3");
  });

  test("refresh-models of an unknown key or provider is a 404", async () => {
    await expectGatewayError(await refresh("openai", "missing"), 404);
    await expectGatewayError(await refresh("nobody", "good"), 404);
  });
});
