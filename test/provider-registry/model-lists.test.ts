import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

async function configureKey(lists: { models?: string[]; blacklisted_models?: string[] }) {
  const response = await gw.admin("/api/providers/openai/keys/k", { method: "PUT", json: { value: "sk-k", ...lists } });
  expect(response.status).toBe(200);
}

/** Which of the model names the key serves, judged by real chat requests. */
async function servedModels(models: string[]): Promise<string[]> {
  const served: string[] = [];
  for (const model of models) {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: `openai/${model}`, messages: [{ role: "user", content: "hi" }] });
    if (response.status === 200) {
      served.push(model);
      await response.body?.cancel();
    } else await expectGatewayError(response, 400, { param: "model", errorType: "caller_model_not_allowed" });
  }
  return served;
}

const CANDIDATES = ["gpt-4o", "gpt-4o-mini", "GPT-4O-MINI", "my-gpt-4o", "gpt-4o-preview", "o1"];

describe("models: the whitelist", () => {
  test('["*"] allows every model', async () => {
    await configureKey({ models: ["*"] });
    expect(await servedModels(CANDIDATES)).toEqual(CANDIDATES);
  });

  test("an omitted list allows every model", async () => {
    await configureKey({});
    expect(await servedModels(CANDIDATES)).toEqual(CANDIDATES);
  });

  test("exact names allow exactly those names", async () => {
    await configureKey({ models: ["gpt-4o", "o1"] });
    expect(await servedModels(CANDIDATES)).toEqual(["gpt-4o", "o1"]);
  });

  test("a regex: entry matches case-insensitively against the whole model name", async () => {
    await configureKey({ models: ["regex:gpt-4o-m.*"] });
    expect(await servedModels(CANDIDATES)).toEqual(["gpt-4o-mini", "GPT-4O-MINI"]);
    await configureKey({ models: ["regex:gpt-4o"] });
    expect(await servedModels(CANDIDATES)).toEqual(["gpt-4o"]);
  });
});

describe("blacklisted_models: the blacklist wins", () => {
  test("an exact name blocks it even when the whitelist allows everything", async () => {
    await configureKey({ models: ["*"], blacklisted_models: ["gpt-4o-mini"] });
    expect(await servedModels(CANDIDATES)).toEqual(CANDIDATES.filter((model) => model !== "gpt-4o-mini"));
  });

  test("a regex: entry blocks what the whitelist names explicitly", async () => {
    await configureKey({ models: ["gpt-4o", "gpt-4o-preview"], blacklisted_models: ["regex:.*PREVIEW"] });
    expect(await servedModels(CANDIDATES)).toEqual(["gpt-4o"]);
  });

  test('["*"] blocks every model', async () => {
    await configureKey({ models: ["*"], blacklisted_models: ["*"] });
    expect(await servedModels(CANDIDATES)).toEqual([]);
  });
});

describe("entries that are not usable patterns are 400s naming the entry", () => {
  const BAD_ENTRIES = [
    ["an empty pattern", "regex:"],
    ["a blank pattern", "regex:   "],
    ["regex:*", "regex:*"],
    ["a pattern that does not compile", "regex:(gpt"],
    // JavaScript RegExp accepts these; RE2 does not, which proves RE2 is the engine.
    ["a lookahead", "regex:(?=gpt)gpt.*"],
    ["a backreference", "regex:(a)\\1"],
  ] as const;

  for (const [what, entry] of BAD_ENTRIES) {
    test(`${what} in models of a provider body names keys[i].models[j]`, async () => {
      const response = await gw.admin("/api/providers/openai", { method: "PUT", json: { keys: [{ id: "k", value: "sk-k" }, { id: "k2", models: ["gpt-4o", entry] }] } });
      await expectGatewayError(response, 400, { param: "keys[1].models[1]" });
    });
  }

  test("in blacklisted_models of a new provider", async () => {
    const response = await gw.admin("/api/providers", { method: "POST", json: { provider: "groq", keys: [{ blacklisted_models: ["regex:*"] }] } });
    await expectGatewayError(response, 400, { param: "keys[0].blacklisted_models[0]" });
    await expectGatewayError(await gw.admin("/api/providers/groq"), 404);
  });

  test("on the key routes the entry is named from the key's root", async () => {
    await expectGatewayError(await gw.admin("/api/providers/openai/keys", { method: "POST", json: { models: ["ok", "regex:"] } }), 400, { param: "models[1]" });
    await expectGatewayError(await gw.admin("/api/providers/openai/keys/k", { method: "PUT", json: { blacklisted_models: ["regex:[z-a]"] } }), 400, {
      param: "blacklisted_models[0]",
    });
  });

  test("a rejected write leaves the stored key unchanged", async () => {
    await configureKey({ models: ["o1"] });
    await gw.admin("/api/providers/openai/keys/k", { method: "PUT", json: { models: ["regex:("] } });
    expect(await servedModels(["o1", "gpt-4o"])).toEqual(["o1"]);
  });
});

describe("weight", () => {
  test("a negative weight is a 400 naming the field", async () => {
    await expectGatewayError(await gw.admin("/api/providers/openai/keys", { method: "POST", json: { weight: -1 } }), 400, { param: "weight" });
    await expectGatewayError(await gw.admin("/api/providers/openai/keys/k", { method: "PUT", json: { weight: -0.5 } }), 400, { param: "weight" });
    await expectGatewayError(await gw.admin("/api/providers/openai", { method: "PUT", json: { keys: [{ id: "k" }, { id: "k3", weight: -2 }] } }), 400, {
      param: "keys[1].weight",
    });
  });

  test("zero and fractional weights are accepted", async () => {
    const response = await gw.admin("/api/providers/openai/keys", { method: "POST", json: { id: "w0", weight: 0 } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ weight: 0 });
    const fractional = await gw.admin("/api/providers/openai/keys/w0", { method: "PUT", json: { weight: 0.25 } });
    expect(await fractional.json()).toMatchObject({ weight: 0.25 });
  });
});
