import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "k", value: "sk-k", models: ["*"] }], network_config: { base_url: upstream.baseUrl } },
      mistral: { keys: [{ id: "m", value: "sk-m", models: ["mistral-large", "meta-llama/Llama-3-8b", "regex:codestral-.*"] }], network_config: { base_url: upstream.baseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const chatUrl = () => `${gw.url}/v1/chat/completions`;
const messages = [{ role: "user", content: "hi" }];

describe("bad bodies on /v1/chat/completions are 400s naming the field", () => {
  const CASES: Array<[string, unknown, string]> = [
    ["missing model", { messages }, "model"],
    ["empty model", { model: "", messages }, "model"],
    ["model of the wrong type", { model: 5, messages }, "model"],
    ["missing messages", { model: "openai/gpt-4o" }, "messages"],
    ["no messages", { model: "openai/gpt-4o", messages: [] }, "messages"],
    ["a message that is not an object", { model: "openai/gpt-4o", messages: [null] }, "messages[0]"],
    ["a message without a role", { model: "openai/gpt-4o", messages: [{ content: "x" }] }, "messages[0].role"],
    ["stream of the wrong type", { model: "openai/gpt-4o", messages, stream: "yes" }, "stream"],
    ["a body that is an array", [{ model: "openai/gpt-4o", messages }], "body"],
    ["a body that is a number", 42, "body"],
  ];
  for (const [what, body, param] of CASES) {
    test(what, async () => {
      const before = upstream.requests.length;
      await expectGatewayError(await postJson(chatUrl(), body), 400, { param, errorType: /^caller_/ });
      expect(upstream.requests.length).toBe(before);
    });
  }

  // The app validates bodies as sent (Elysia's normalize is off): a value is never reshaped first.
  test("messages of the wrong type", async () => {
    await expectGatewayError(await postJson(chatUrl(), { model: "openai/gpt-4o", messages: "hi" }), 400, { param: "messages" });
  });

  test("invalid JSON", async () => {
    await expectGatewayError(await postJson(chatUrl(), '{"model": "openai/gpt-4o", "messages": ['), 400, { param: "body", errorType: "caller_invalid_json" });
  });

  test("an empty body", async () => {
    await expectGatewayError(await postJson(chatUrl(), ""), 400, { errorType: /^caller_/ });
  });

  test("JSON sent without a content type", async () => {
    const response = await fetch(chatUrl(), { method: "POST", body: JSON.stringify({ model: "openai/gpt-4o", messages }) });
    expect(response.status).toBeLessThan(500);
    if (response.status !== 200) await expectGatewayError(response, 400, { errorType: /^caller_/ });
  });

  test("a URL-encoded form (curl -d without a content type) is a 415 saying the body must be JSON, on every mount", async () => {
    const form = "model=openai%2Fgpt-4o&messages=hi";
    for (const path of ["/v1/chat/completions", "/anthropic/v1/messages", "/v1/async/chat/completions"]) {
      const response = await fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
      const body = await expectGatewayError(response, 415, { param: "content-type", errorType: "caller_unsupported_media_type" });
      expect(body.error.message).toContain("must be JSON");
      expect(body.error.message).toContain("application/x-www-form-urlencoded");
    }
  });
});

describe("the other OpenAI routes name their own required fields", () => {
  test("/v1/embeddings without input", async () => {
    await expectGatewayError(await postJson(`${gw.url}/v1/embeddings`, { model: "openai/text-embedding-3-small" }), 400, { param: "input" });
  });
  test("/v1/completions without prompt", async () => {
    await expectGatewayError(await postJson(`${gw.url}/v1/completions`, { model: "openai/gpt-3.5-turbo-instruct" }), 400, { param: "prompt" });
  });
  test("/v1/responses without model", async () => {
    await expectGatewayError(await postJson(`${gw.url}/v1/responses`, { input: "x" }), 400, { param: "model" });
  });
});

describe("model resolution", () => {
  const send = (model: string) => postJson(chatUrl(), { model, messages });

  test("a bare model name no key lists is a 400 naming model", async () => {
    await expectGatewayError(await send("gpt-4o"), 400, { param: "model", errorType: "caller_invalid_model" });
  });

  test("a bare model name a key lists by name resolves to that key's provider", async () => {
    const response = await send("mistral-large");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-provider")).toBe("mistral");
    await response.arrayBuffer();
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-m");
  });

  test("an org/model name whose org is no provider resolves through the keys and reaches the upstream whole", async () => {
    const response = await send("meta-llama/Llama-3-8b");
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(upstream.requests.at(-1)!.body.model).toBe("meta-llama/Llama-3-8b");
  });

  test("provider/org/model sends org/model to the provider", async () => {
    const response = await send("openai/ft/my-model");
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(upstream.requests.at(-1)!.body.model).toBe("ft/my-model");
  });

  test("a built-in provider that is not configured is a 400", async () => {
    await expectGatewayError(await send("groq/llama-3.1-8b"), 400, { param: "model", errorType: "caller_provider_not_configured" });
  });

  test("an unknown provider is a 400", async () => {
    await expectGatewayError(await send("no-such-provider/some-model"), 400, { param: "model" });
  });

  test("a provider with nothing after the slash is a 400", async () => {
    await expectGatewayError(await send("openai/"), 400, { param: "model" });
  });

  test("a model a key's list does not allow is a 400", async () => {
    await expectGatewayError(await send("mistral/mistral-tiny"), 400, { param: "model", errorType: "caller_model_not_allowed" });
  });
});

describe("unknown routes", () => {
  test("an unknown path is a 404 gateway error body", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/no-such-endpoint`), 404, { errorType: "caller_route_not_found" });
    await expectGatewayError(await postJson(`${gw.url}/nothing/here`, {}), 404, { errorType: "caller_route_not_found" });
  });

  test("a known path with the wrong method is a 404 gateway error body", async () => {
    // GET /v1/chat/completions is OpenAI's list of stored completions; embeddings have no GET.
    await expectGatewayError(await fetch(`${gw.url}/v1/embeddings`), 404, { errorType: "caller_route_not_found" });
  });
});

describe("error_type is classified by fault domain", () => {
  test("caller_: what the client sent", async () => {
    const body = await expectGatewayError(await postJson(chatUrl(), { messages }), 400, { errorType: /^caller_/ });
    expect(body.is_gateway_error).toBe(true);
    expect(body.error.type).toBe("invalid_request_error");
  });

  test("provider_: what the upstream answered, with its status", async () => {
    upstream.faults.push({ kind: "status", status: 500 });
    const body = await expectGatewayError(await postJson(chatUrl(), { model: "openai/gpt-4o", messages }), 500, { errorType: /^provider_/ });
    expect(body.is_gateway_error).toBe(false);
    expect(body.extra_fields).toMatchObject({ provider: "openai", model_requested: "gpt-4o", request_type: "chat.completion" });
  });

  test("gateway_: a provider the gateway cannot call as configured", async () => {
    const created = await gw.admin("/api/providers", { method: "POST", json: { provider: "azure", keys: [{ id: "az", value: "azure-key" }] } });
    expect(created.status).toBe(201);
    const body = await expectGatewayError(await postJson(chatUrl(), { model: "azure/gpt-4o", messages }), 500, { errorType: /^gateway_/ });
    expect(body.error.message).not.toContain("azure-key");
  });
});

describe("nothing a client sends becomes a 500", () => {
  const ODD_BODIES: unknown[] = [
    null,
    "a string",
    { model: null, messages },
    { model: "openai/gpt-4o", messages: [{ role: 1 }] },
    { model: "openai/gpt-4o", messages, fallbacks: [null] },
    { model: "openai/gpt-4o", messages, fallbacks: {} },
    { model: ["openai/gpt-4o"], messages },
    { model: "openai/gpt-4o", messages: [{ role: "user", content: { nested: [1, 2] } }], stream: true, n: "many" },
    { model: "/gpt-4o", messages },
    { model: "openai//", messages },
  ];
  for (const [index, body] of ODD_BODIES.entries()) {
    test(`odd body #${index}: ${JSON.stringify(body).slice(0, 60)}`, async () => {
      const response = await postJson(chatUrl(), body);
      expect(response.status).toBeLessThan(500);
      if (response.status === 200) await response.arrayBuffer();
      else await expectGatewayError(response, response.status, { errorType: /^caller_/ });
    });
  }

  test("a model name no header can carry comes back in x-gw-model percent-encoded, on the mounts and in Azure's deployment path", async () => {
    for (const model of ["模型-7b", "tab\tand\u0000nul", "lone \ud800 surrogate"]) {
      const viaMount = await postJson(`${gw.url}/openai/v1/chat/completions`, { model, messages });
      expect(viaMount.status).toBe(200);
      expect(viaMount.headers.get("x-gw-model")).toBe(encodeURIComponent(model.toWellFormed()));
      expect(((await viaMount.json()) as { model: string }).model).toBe(model);
      const viaDeployment = await postJson(`${gw.url}/openai/openai/deployments/${encodeURIComponent(`openai/${model.toWellFormed()}`)}/chat/completions?api-version=2024-10-21`, { messages });
      expect(viaDeployment.status).toBe(200);
      expect(decodeURIComponent(viaDeployment.headers.get("x-gw-model")!)).toBe(model.toWellFormed());
    }
  });

  test("odd headers", async () => {
    const response = await postJson(chatUrl(), { model: "openai/gpt-4o", messages }, { "x-gw-api-key-id": "" });
    expect(response.status).toBeLessThan(500);
    await response.arrayBuffer();
  });
});
