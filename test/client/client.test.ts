import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { createGatewayClient, type GatewayClient } from "../../client";
import { eventually } from "../support/eventually";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let gateway: GatewayClient;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
  gateway = createGatewayClient(gw.url, { setupToken: SETUP_TOKEN });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("client/index.ts, as a user's script calls the management API", () => {
  test("registers a provider, creates a virtual key, and finds the key's call in the logs", async () => {
    const provider = await gateway.POST("/api/providers", { body: { provider: "openai", keys: [{ value: "sk-upstream-0001", models: ["*"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } });
    expect(provider.response.status).toBe(201);
    expect(provider.data?.keys[0]?.value).not.toContain("sk-upstream-0001");

    const created = await gateway.POST("/api/governance/virtual-keys", { body: { name: "nightly-eval", budgets: [{ max_limit: 5, reset_duration: "1M" }] } });
    expect(created.response.status).toBe(201);
    const key = created.data!.virtual_key;
    expect(key.value).toStartWith("sk-gw-");
    expect(key.budgets).toEqual([{ max_limit: 5, reset_duration: "1M", calendar_aligned: false }]);

    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key.value, maxRetries: 0 });
    await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "say hello" }] });

    const read = () => gateway.GET("/api/logs", { params: { query: { virtual_key_ids: key.id } } });
    const { data } = await eventually(read, ({ data }) => (data?.logs.length ?? 0) > 0);
    expect(data?.logs.map((log) => ({ virtual_key_name: log.virtual_key_name, provider: log.provider, model: log.model, status: log.status }))).toEqual([
      { virtual_key_name: "nightly-eval", provider: "openai", model: "gpt-4o-mini", status: "success" },
    ]);
  });

  test("a refused call answers the gateway's error body, naming the bad field", async () => {
    const { data, error, response } = await gateway.POST("/api/governance/virtual-keys", { body: { name: "bad", budgets: [{ max_limit: -1, reset_duration: "1M" }] } });
    expect(response.status).toBe(400);
    expect(data).toBeUndefined();
    expect(error?.error.param).toBe("budgets[0].max_limit");
    expect(error?.extra_fields.error_type).toBe("caller_invalid_request");
  });

  test("path parameters are filled in, and an unknown id is a 404", async () => {
    const { error, response } = await gateway.GET("/api/logs/{id}", { params: { path: { id: "no-such-log" } } });
    expect(response.status).toBe(404);
    expect(error?.error.message).toBeString();
  });

  test("a wrong credential is refused with 401", async () => {
    const stranger = createGatewayClient(gw.url, { bearer: "not-a-session" });
    const { error, response } = await stranger.GET("/api/governance/virtual-keys");
    expect(response.status).toBe(401);
    expect(error?.extra_fields.error_type).toStartWith("caller_");
  });
});
