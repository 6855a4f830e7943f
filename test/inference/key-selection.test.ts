import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

type KeySpec = { id: string; weight?: number; enabled?: boolean; models?: string[]; blacklisted_models?: string[]; aliases?: Record<string, string> };

/** Replaces the provider's keys; each key's secret is `secret-<id>` so the upstream's Authorization names it. */
async function useKeys(keys: KeySpec[]) {
  const response = await gw.admin("/api/providers/openai", { method: "PUT", json: { keys: keys.map((key) => ({ value: `secret-${key.id}`, ...key })) } });
  expect(response.status).toBe(200);
}

const keyIdOf = (authorization: string | null) => authorization?.replace(/^Bearer secret-/, "") ?? "(none)";

/** Sends `count` chat requests (8 at a time) and counts which key the upstream saw on each. */
async function keysChosen(count: number, model = "gpt-4o-mini", headers: Record<string, string> = {}): Promise<Record<string, number>> {
  const start = upstream.requests.length;
  const send = async () => {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: `openai/${model}`, messages: [{ role: "user", content: "pick" }] }, headers);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  };
  for (let sent = 0; sent < count; sent += 8) await Promise.all(Array.from({ length: Math.min(8, count - sent) }, send));
  const counts: Record<string, number> = {};
  for (const request of upstream.requests.slice(start)) {
    const id = keyIdOf(request.headers.get("authorization"));
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

describe("weighted random selection among enabled keys allowed for the model", () => {
  test("weights 3:1 split 400 requests about 300:100", async () => {
    await useKeys([
      { id: "a", weight: 3 },
      { id: "b", weight: 1 },
    ]);
    const counts = await keysChosen(400);
    expect(Object.keys(counts).sort()).toEqual(["a", "b"]);
    // Binomial(400, 0.75): mean 300, sd 8.7; ±50 is over 5.7 sd, while an unweighted pick lands near 200.
    expect(counts.a!).toBeGreaterThan(250);
    expect(counts.a!).toBeLessThan(350);
  });

  test("fractional weights count as their ratio", async () => {
    await useKeys([
      { id: "a", weight: 0.1 },
      { id: "b", weight: 0.9 },
    ]);
    const counts = await keysChosen(400);
    // Binomial(400, 0.9): mean 360, sd 6.
    expect(counts.b!).toBeGreaterThan(330);
    expect(counts.b!).toBeLessThan(390);
  });

  test("weights as large as a number gets still split by their ratio", async () => {
    await useKeys([
      { id: "a", weight: 1e308 },
      { id: "b", weight: 1e308 },
    ]);
    const counts = await keysChosen(200);
    // Binomial(200, 0.5): mean 100, sd 7.1; their sum overflowing to Infinity sent every request to b.
    expect(counts.a!).toBeGreaterThan(60);
    expect(counts.a!).toBeLessThan(140);
  });
});

describe("weight 0 is picked only when no eligible key has a positive weight", () => {
  test("a weight-0 key is never chosen while a positive key is eligible", async () => {
    await useKeys([
      { id: "zero", weight: 0 },
      { id: "positive", weight: 1 },
    ]);
    expect(await keysChosen(200)).toEqual({ positive: 200 });
  });

  test("a weight-0 key serves the models no positive key is allowed", async () => {
    await useKeys([
      { id: "zero", weight: 0 },
      { id: "positive", weight: 5, blacklisted_models: ["o1"] },
    ]);
    expect(await keysChosen(40, "o1")).toEqual({ zero: 40 });
    expect(await keysChosen(40, "gpt-4o")).toEqual({ positive: 40 });
  });

  test("keys are picked uniformly when all weights are 0", async () => {
    await useKeys([
      { id: "a", weight: 0 },
      { id: "b", weight: 0 },
    ]);
    const counts = await keysChosen(400);
    // Binomial(400, 0.5): mean 200, sd 10.
    expect(counts.a!).toBeGreaterThan(150);
    expect(counts.a!).toBeLessThan(250);
  });
});

describe("disabled keys are never chosen", () => {
  test("however heavy their weight", async () => {
    await useKeys([
      { id: "off", weight: 100, enabled: false },
      { id: "on", weight: 1 },
    ]);
    expect(await keysChosen(100)).toEqual({ on: 100 });
  });

  test("with every key disabled the request is a 400, and nothing reaches the upstream", async () => {
    await useKeys([{ id: "off", enabled: false }]);
    const before = upstream.requests.length;
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o", messages: [{ role: "user", content: "x" }] });
    await expectGatewayError(response, 400, { param: "model", errorType: "caller_model_not_allowed" });
    expect(upstream.requests.length).toBe(before);
  });
});

describe("aliases map the user-facing model name to the provider's identifier", () => {
  test("the upstream receives the alias target, only from the key that declares it", async () => {
    await useKeys([
      { id: "aliased", models: ["gpt-4o"], aliases: { fast: "gpt-4o-mini-2024-07-18" } },
      { id: "plain", models: ["gpt-4o"] },
    ]);
    for (let round = 0; round < 20; round++) {
      await client.chat.completions.create({ model: "openai/fast", messages: [{ role: "user", content: "alias" }] });
      const sent = upstream.requests.at(-1)!;
      expect({ model: sent.body.model, key: keyIdOf(sent.headers.get("authorization")) }).toEqual({ model: "gpt-4o-mini-2024-07-18", key: "aliased" });
    }
    await client.chat.completions.create({ model: "openai/gpt-4o", messages: [{ role: "user", content: "no alias" }] });
    expect(upstream.requests.at(-1)!.body.model).toBe("gpt-4o");
  });

  test("a blacklist naming the alias target blocks the alias too", async () => {
    await useKeys([{ id: "aliased", aliases: { fast: "gpt-4o-mini" }, blacklisted_models: ["gpt-4o-mini"] }]);
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/fast", messages: [{ role: "user", content: "x" }] }), 400, {
      errorType: "caller_model_not_allowed",
    });
  });

  test("a bare alias name resolves to the provider whose key declares it", async () => {
    await useKeys([{ id: "aliased", aliases: { "house-fast": "gpt-4o-mini" } }]);
    const completion = await client.chat.completions.create({ model: "house-fast", messages: [{ role: "user", content: "bare" }] });
    expect(completion.choices[0]!.message.content).toBe("echo: bare");
    expect(upstream.requests.at(-1)!.body.model).toBe("gpt-4o-mini");
  });
});

describe("x-gw-api-key-id pins a key", () => {
  test("every pinned request uses that key, whatever the weights", async () => {
    await useKeys([
      { id: "heavy", weight: 100 },
      { id: "light", weight: 1 },
    ]);
    expect(await keysChosen(40, "gpt-4o-mini", { "x-gw-api-key-id": "light" })).toEqual({ light: 40 });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "sdk" }] }, { headers: { "x-gw-api-key-id": "light" } });
    expect(keyIdOf(upstream.requests.at(-1)!.headers.get("authorization"))).toBe("light");
  });

  test("an unknown key id is a 400 naming the header", async () => {
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o", messages: [{ role: "user", content: "x" }] }, { "x-gw-api-key-id": "nope" });
    await expectGatewayError(response, 400, { param: "x-gw-api-key-id" });
  });

  test("pinning a disabled key, or one the model is not allowed on, is a 400", async () => {
    await useKeys([
      { id: "on", weight: 1 },
      { id: "off", enabled: false },
      { id: "narrow", models: ["o1"] },
    ]);
    const send = (pin: string) => postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o", messages: [{ role: "user", content: "x" }] }, { "x-gw-api-key-id": pin });
    await expectGatewayError(await send("off"), 400, { param: "x-gw-api-key-id" });
    await expectGatewayError(await send("narrow"), 400, { param: "x-gw-api-key-id" });
  });
});
