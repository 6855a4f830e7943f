import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const json = async (response: Response, status: number) => {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  return JSON.parse(text);
};

describe("providers: GET/POST /api/providers, GET/PUT/DELETE /api/providers/{provider}", () => {
  test("POST creates a provider (201) with its network_config, GET lists and returns it", async () => {
    const network_config = {
      base_url: upstream.baseUrl,
      extra_headers: { "x-team": "core" },
      default_request_timeout_in_seconds: 12,
      max_retries: 2,
      retry_backoff_initial: 100,
      retry_backoff_max: 900,
    };
    const created = await json(await gw.admin("/api/providers", { method: "POST", json: { provider: "groq", network_config, keys: [{ id: "g1", value: "gsk-groq-secret-value-1" }] } }), 201);
    expect(created).toMatchObject({ provider: "groq", network_config, keys: [{ id: "g1" }] });

    const one = await json(await gw.admin("/api/providers/groq"), 200);
    expect(one).toEqual(created);
    const list = await json(await gw.admin("/api/providers"), 200);
    expect(list.providers.map((provider: { provider: string }) => provider.provider)).toContain("groq");
  });

  test("POST of an existing provider name is a 409", async () => {
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "groq" } }), 409);
  });

  test("PUT replaces network_config and keeps the keys when none are given", async () => {
    const updated = await json(await gw.admin("/api/providers/groq", { method: "PUT", json: { network_config: { base_url: upstream.baseUrl, max_retries: 1 } } }), 200);
    expect(updated.network_config).toEqual({ base_url: upstream.baseUrl, max_retries: 1 });
    expect(updated.keys.map((key: { id: string }) => key.id)).toEqual(["g1"]);
    expect(await json(await gw.admin("/api/providers/groq"), 200)).toEqual(updated);
  });

  test("the provider's extra_headers travel with every upstream call", async () => {
    await gw.admin("/api/providers/groq", { method: "PUT", json: { network_config: { base_url: upstream.baseUrl, extra_headers: { "x-team": "core" } } } });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    await client.chat.completions.create({ model: "groq/llama-3.1-8b", messages: [{ role: "user", content: "hi" }] });
    expect(upstream.requests.at(-1)!.headers.get("x-team")).toBe("core");
  });

  test("DELETE removes the provider; afterwards GET, PUT and DELETE are 404", async () => {
    expect(await json(await gw.admin("/api/providers/groq", { method: "DELETE" }), 200)).toEqual({ message: expect.any(String) });
    await expectGatewayError(await gw.admin("/api/providers/groq"), 404);
    await expectGatewayError(await gw.admin("/api/providers/groq", { method: "PUT", json: {} }), 404);
    await expectGatewayError(await gw.admin("/api/providers/groq", { method: "DELETE" }), 404);
    const list = await json(await gw.admin("/api/providers"), 200);
    expect(list.providers.map((provider: { provider: string }) => provider.provider)).not.toContain("groq");
  });

  test("an unknown provider name without custom_provider_config is a 400 naming `provider`", async () => {
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "no-such-cloud" } }), 400, { param: "provider" });
    await expectGatewayError(await gw.admin("/api/providers/no-such-cloud"), 404);
  });

  test("bad bodies are 400s naming the field", async () => {
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: {} }), 400, { param: "provider" });
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "Bad Name!" } }), 400, { param: "provider" });
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "mistral", network_config: { max_retries: -1 } } }), 400, {
      param: "network_config.max_retries",
    });
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "mistral", network_config: { base_url: "not a url" } } }), 400, {
      param: "network_config.base_url",
    });
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" }), 400, { param: "body" });
  });
});

describe("fields of the wrong type", () => {
  // The app validates bodies as sent (Elysia's normalize is off): a value is never reshaped first.
  test("are 400s naming the field, never reshaped and stored", async () => {
    await gw.admin("/api/providers", { method: "POST", json: { provider: "xai", keys: [{ id: "x1", value: "v" }] } });
    await expectGatewayError(await gw.admin("/api/providers/xai", { method: "PUT", json: { keys: "abc" } }), 400, { param: "keys" });
    await expectGatewayError(await gw.admin("/api/providers/xai/keys/x1", { method: "PUT", json: { aliases: "x" } }), 400, { param: "aliases" });
    await expectGatewayError(await gw.admin("/api/providers/xai", { method: "PUT", json: { network_config: "x" } }), 400, { param: "network_config" });
  });

  test("response-only fields written back are not stored: config_hash is the server's", async () => {
    await gw.admin("/api/providers", { method: "POST", json: { provider: "cerebras", keys: [{ id: "c1", value: "v" }] } });
    const written = await json(await gw.admin("/api/providers/cerebras/keys/c1", { method: "PUT", json: { value: "v", config_hash: "forged", status: "success", surprise: 1 } }), 200);
    expect(written.config_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(written).not.toHaveProperty("surprise");
    expect(written.status).not.toBe("success");
  });
});

describe("custom providers (custom_provider_config.base_provider_type)", () => {
  test("a custom provider on a built-in base type is reachable as name/model", async () => {
    const created = await json(
      await gw.admin("/api/providers", {
        method: "POST",
        json: { provider: "team-llm", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl }, keys: [{ id: "t1", value: "team-secret-0000001" }] },
      }),
      201,
    );
    expect(created.custom_provider_config).toEqual({ base_provider_type: "openai" });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "team-llm/house-model", messages: [{ role: "user", content: "custom" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: custom");
    const sent = upstream.requests.at(-1)!;
    expect(sent.body.model).toBe("house-model");
    expect(sent.headers.get("authorization")).toBe("Bearer team-secret-0000001");
  });

  test("an unknown base type, a missing base_url and a built-in name are 400s naming the field", async () => {
    const post = (body: unknown) => gw.admin("/api/providers", { method: "POST", json: body });
    await expectGatewayError(await post({ provider: "c1", custom_provider_config: { base_provider_type: "nope" }, network_config: { base_url: upstream.baseUrl } }), 400, {
      param: "custom_provider_config.base_provider_type",
    });
    await expectGatewayError(await post({ provider: "c2", custom_provider_config: { base_provider_type: "openai" } }), 400, { param: "network_config.base_url" });
    await expectGatewayError(await post({ provider: "openai", custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: upstream.baseUrl } }), 400, {
      param: "custom_provider_config",
    });
  });
});

describe("keys: GET/POST /api/providers/{provider}/keys, GET/PUT/DELETE .../keys/{key_id}", () => {
  beforeAll(async () => {
    await gw.admin("/api/providers", { method: "POST", json: { provider: "mistral", network_config: { base_url: upstream.baseUrl } } });
  });

  test("POST adds a key (201) and GET lists it; a second POST with the same id is a 409", async () => {
    const created = await json(await gw.admin("/api/providers/mistral/keys", { method: "POST", json: { id: "m1", name: "first", value: "mistral-secret-00001", weight: 2 } }), 201);
    expect(structuredClone(created)).toMatchObject({ id: "m1", name: "first", weight: 2, enabled: true, config_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const list = await json(await gw.admin("/api/providers/mistral/keys"), 200);
    expect(list.keys).toEqual([created]);
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys", { method: "POST", json: { id: "m1", value: "other" } }), 409);
  });

  test("a key without an id gets one generated", async () => {
    const created = await json(await gw.admin("/api/providers/mistral/keys", { method: "POST", json: { value: "mistral-secret-00002" } }), 201);
    expect(created.id).toEqual(expect.any(String));
    expect(created.id.length).toBeGreaterThan(0);
    expect(await json(await gw.admin(`/api/providers/mistral/keys/${created.id}`), 200)).toEqual(created);
    await gw.admin(`/api/providers/mistral/keys/${created.id}`, { method: "DELETE" });
  });

  test("GET of one key (spec 4.8) returns it; unknown key or provider is a 404", async () => {
    expect(await json(await gw.admin("/api/providers/mistral/keys/m1"), 200)).toMatchObject({ id: "m1", name: "first" });
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys/missing"), 404);
    await expectGatewayError(await gw.admin("/api/providers/unconfigured/keys/m1"), 404);
    await expectGatewayError(await gw.admin("/api/providers/unconfigured/keys"), 404);
  });

  test("PUT replaces the key's configuration and keeps its id", async () => {
    const updated = await json(await gw.admin("/api/providers/mistral/keys/m1", { method: "PUT", json: { name: "renamed", value: "mistral-secret-00001", weight: 0.5, models: ["mistral-small"] } }), 200);
    expect(updated).toMatchObject({ id: "m1", name: "renamed", weight: 0.5, models: ["mistral-small"] });
    expect(await json(await gw.admin("/api/providers/mistral/keys/m1"), 200)).toEqual(updated);
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys/missing", { method: "PUT", json: { value: "x" } }), 404);
  });

  test("DELETE removes the key; a second DELETE is a 404", async () => {
    await json(await gw.admin("/api/providers/mistral/keys", { method: "POST", json: { id: "m-gone", value: "v" } }), 201);
    await json(await gw.admin("/api/providers/mistral/keys/m-gone", { method: "DELETE" }), 200);
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys/m-gone"), 404);
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys/m-gone", { method: "DELETE" }), 404);
    const list = await json(await gw.admin("/api/providers/mistral/keys"), 200);
    expect(list.keys.map((key: { id: string }) => key.id)).toEqual(["m1"]);
  });

  test("PUT on the provider with `keys` replaces the key list whole", async () => {
    const updated = await json(await gw.admin("/api/providers/mistral", { method: "PUT", json: { keys: [{ id: "m2", value: "mistral-secret-00003" }] } }), 200);
    expect(updated.keys.map((key: { id: string }) => key.id)).toEqual(["m2"]);
    await expectGatewayError(await gw.admin("/api/providers/mistral/keys/m1"), 404);
  });

  test("two keys with one id in a provider body is a 409 naming the second", async () => {
    await expectGatewayError(await gw.admin("/api/providers/mistral", { method: "PUT", json: { keys: [{ id: "dup" }, { id: "dup" }] } }), 409, { param: "keys[1].id" });
  });
});
