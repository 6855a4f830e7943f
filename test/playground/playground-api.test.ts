import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The playground's calls as the dashboard makes them: a chat run as a virtual key chosen by id,
 * whose secret the operator never had, with that key's access and budget applied and its run an
 * ordinary log row.
 */
let upstream: MockOpenAI;
let gw: TestGateway;
const keys: Record<string, string> = {};

type Json = Record<string, any>;

async function post(path: string, json: unknown): Promise<Json> {
  const response = await gw.admin(path, { method: "POST", json });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

const run = (json: unknown, key?: string) => gw.admin(`/api/playground/chat/completions${key ? `?virtual_key_id=${keys[key]}` : ""}`, { method: "POST", json });
const logRow = (id: string) => eventually(() => gw.admin(`/api/logs/${id}`), (response) => response.status === 200).then((response) => response.json() as Promise<Json>);

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway();
  await post("/api/providers", { provider: "openai", keys: [{ id: "k1", name: "primary", value: "sk-upstream", models: ["gpt-4o-mini", "gpt-4o"] }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } });
  await post("/api/governance/pricing-overrides", { name: "tiny", pattern: "gpt-4o*", patch: { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } });
  keys.mini = (await post("/api/governance/virtual-keys", { name: "mini only", provider_configs: [{ provider: "openai", allowed_models: ["gpt-4o-mini"] }] })).virtual_key.id;
  keys.broke = (await post("/api/governance/virtual-keys", { name: "broke", budgets: [{ max_limit: 0.000001, reset_duration: "1d" }] })).virtual_key.id;
});
afterAll(async () => {
  await gw?.close();
  upstream?.stop();
});

describe("the playground's API", () => {
  test("a streamed run as a key answers as /v1 does and is logged as that key's ordinary request", async () => {
    const response = await run({ model: "openai/gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi there" }] }, "mini");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text).toContain('"content":"hi "');
    expect(text).toContain("data: [DONE]");
    const row = await logRow(response.headers.get("x-gw-request-id")!);
    expect(row).toMatchObject({ model: "gpt-4o-mini", provider: "openai", virtual_key_name: "mini only", virtual_key_id: keys.mini, internal_caller: null, stream: true, status: "success" });
    expect(row.cost).toBeGreaterThan(0);
    // The operator's credentials never reach the pipeline's log.
    expect(JSON.stringify(row)).not.toContain("test-setup-token");
  });

  test("the key's access and budget apply: a model it may not use is 403, a spent budget 402", async () => {
    await expectGatewayError(await run({ model: "openai/gpt-4o", messages: [{ role: "user", content: "hi" }] }, "mini"), 403, { errorType: "policy_model_not_allowed" });
    expect((await run({ model: "openai/gpt-4o", messages: [{ role: "user", content: "spend it all" }] }, "broke")).status).toBe(200);
    await eventually(() => run({ model: "openai/gpt-4o", messages: [{ role: "user", content: "more" }] }, "broke"), (response) => response.status === 402);
  });

  test("the models offered are those the key may use; every one without a key", async () => {
    const models = async (query: string) => ((await (await gw.admin(`/api/playground/models${query}`)).json()) as Json).models.map((model: Json) => model.id).sort();
    expect(await models(`?virtual_key_id=${keys.mini}`)).toEqual(["openai/gpt-4o-mini"]);
    expect(await models("")).toEqual(["openai/gpt-4o", "openai/gpt-4o-mini"]);
  });

  test("each model offered carries its context window and list prices, as /v1/models shows them", async () => {
    const offered = ((await (await gw.admin("/api/playground/models")).json()) as Json).models as Json[];
    const listed = ((await (await fetch(`${gw.url}/v1/models`)).json()) as Json).data as Json[];
    for (const model of offered) {
      const facts = listed.find((entry) => entry.id === model.id)!;
      expect(model.context_window).toBeGreaterThan(0);
      expect(model.pricing.input_cost_per_token).toBeGreaterThan(0);
      expect({ context_window: model.context_window, pricing: model.pricing }).toEqual({ context_window: facts.context_window, pricing: facts.pricing });
    }
    expect(offered).toHaveLength(2);
  });

  test("an unknown key is a 400 naming virtual_key_id; a body without messages names the field", async () => {
    await expectGatewayError(await gw.admin("/api/playground/chat/completions?virtual_key_id=nope", { method: "POST", json: { model: "openai/gpt-4o", messages: [{ role: "user", content: "hi" }] } }), 400, { param: "virtual_key_id" });
    await expectGatewayError(await gw.admin("/api/playground/models?virtual_key_id=nope"), 400, { param: "virtual_key_id" });
    const response = await gw.admin("/api/playground/chat/completions", { method: "POST", json: { model: "openai/gpt-4o" } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("messages");
  });
});
