import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import * as classification from "../../src/governance/complexity/classify";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;
let tiered: { id: string; value: string };

const TIER_MODELS = { simple: "cheap-model", medium: "mid-model", complex: "strong-model", reasoning: "reasoner-model" };

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream) } });
  // Only this key's rules read the tier: requests without it meet no rule that does.
  tiered = await createVirtualKey(gw, { name: "tiered" });
  for (const [tier, model] of Object.entries(TIER_MODELS)) {
    await created(gw, "/api/governance/routing-rules", { name: `to ${tier}`, scope: "virtual_key", scope_id: tiered.id, cel_expression: `complexity_tier == "${tier}"`, targets: [{ provider: "openai", model }] });
  }
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const code = "```python\n" + "def merge(a, b):\n    out = []\n    while a and b:\n        out.append(a.pop(0) if a[0] < b[0] else b.pop(0))\n    return out + a + b\n".repeat(5) + "```";
const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } });
const agentTurns = Array.from({ length: 16 }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: `step ${index}: read src/part-${index}.py and say what it exports` }));

/** Sends a chat under the tiered key, in its own conversation and log case; answers the model it reached upstream. */
async function modelFor(testCase: string, body: Record<string, unknown>, session = testCase): Promise<string> {
  const response = await chat(gw, tiered.value, body, { "x-gw-session-id": session, "x-gw-metadata-case": testCase });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return upstream.requests.at(-1)!.body.model as string;
}

describe("routing rules read complexity_tier", () => {
  test.each([
    ["simple", { messages: [{ role: "user", content: "what's the capital of Italy?" }] }],
    ["medium", { messages: [{ role: "user", content: "what's the weather in Paris?" }], tools: [tool("get_weather")] }],
    ["complex", { messages: agentTurns, tools: ["read_file", "write_file", "run_tests", "grep", "list_dir"].map(tool) }],
    ["reasoning", { messages: [{ role: "user", content: "prove that the square root of 3 is irrational" }] }],
    ["reasoning", { messages: [{ role: "user", content: "plan the offsite" }], reasoning_effort: "high" }],
  ] as const)("a %s request goes to that tier's model, and its log row says the tier and score", async (tier, body) => {
    const testCase = `tier-${tier}-${JSON.stringify(body).length}`;
    expect(await modelFor(testCase, body)).toBe(TIER_MODELS[tier]);
    const row = await loggedRequest(gw, testCase);
    expect(row.complexity_tier).toBe(tier);
    expect(row.complexity_score as number).toBeGreaterThanOrEqual(Object.keys(TIER_MODELS).indexOf(tier) / 4);
    expect(row.complexity_score as number).toBeLessThan((Object.keys(TIER_MODELS).indexOf(tier) + 1) / 4);
  });

  test("code in the prompt lifts a short request out of the simple tier", async () => {
    expect(await modelFor("tier-code", { messages: [{ role: "user", content: `why does this fail?\n${code.slice(0, 120)}\n\`\`\`` }] })).toBe(TIER_MODELS.medium);
  });
});

describe("a conversation never drops below the highest tier it reached", () => {
  test("a short follow-up in a hard session stays with the strong model; the same words in a new session go to the cheap one", async () => {
    expect(await modelFor("floor-1", { messages: [{ role: "user", content: "prove that there are infinitely many primes of the form 4k+3" }] }, "floor-run")).toBe(TIER_MODELS.reasoning);
    expect(await modelFor("floor-2", { messages: [{ role: "user", content: "thanks!" }] }, "floor-run")).toBe(TIER_MODELS.reasoning);
    expect((await loggedRequest(gw, "floor-2")).complexity_tier).toBe("reasoning");
    expect(await modelFor("floor-3", { messages: [{ role: "user", content: "thanks!" }] }, "another-run")).toBe(TIER_MODELS.simple);
  });

  test("without a session header, the conversation is known by its opening turns", async () => {
    const opening = [{ role: "system", content: "You are a tutor." }, { role: "user", content: "prove that the sum of two even numbers is even" }];
    const send = (messages: unknown[], testCase: string) => chat(gw, tiered.value, { messages }, { "x-gw-metadata-case": testCase }).then(async (response) => (await response.arrayBuffer(), upstream.requests.at(-1)!.body.model));
    expect(await send(opening, "opening-1")).toBe(TIER_MODELS.reasoning);
    expect(await send([...opening, { role: "assistant", content: "Let a = 2m and b = 2n..." }, { role: "user", content: "ok thanks" }], "opening-2")).toBe(TIER_MODELS.reasoning);
    expect((await loggedRequest(gw, "opening-2")).conversation_id).toBe((await loggedRequest(gw, "opening-1")).conversation_id);
  });

  test("the floor is one virtual key's: another key's chat that opens the same way starts from its own tier", async () => {
    const other = await createVirtualKey(gw, { name: "other tiered" });
    await created(gw, "/api/governance/routing-rules", { name: "other to reasoner", scope: "virtual_key", scope_id: other.id, cel_expression: 'complexity_tier == "reasoning"', targets: [{ provider: "openai", model: TIER_MODELS.reasoning }] });
    const opening = [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "hi" }];
    const send = (key: string, messages: unknown[]) => chat(gw, key, { messages }).then(async (response) => (await response.arrayBuffer(), upstream.requests.at(-1)!.body.model));
    expect(await send(tiered.value, opening)).toBe(TIER_MODELS.simple);
    expect(await send(tiered.value, [...opening, { role: "assistant", content: "Hello!" }, { role: "user", content: "prove that the square root of 5 is irrational" }])).toBe(TIER_MODELS.reasoning);
    expect(await send(tiered.value, opening)).toBe(TIER_MODELS.reasoning);
    expect(await send(other.value, opening)).toBe("gpt-4o-mini");
  });
});

test("a request no rule reads the tier for is never classified: the classifier is not called and its log row has no tier", async () => {
  const classifier = spyOn(classification, "classify");
  try {
    const response = await chat(gw, undefined, { messages: [{ role: "user", content: "prove that the square root of 2 is irrational" }] }, { "x-gw-metadata-case": "unclassified" });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(classifier).not.toHaveBeenCalled();
    expect(await loggedRequest(gw, "unclassified")).toMatchObject({ complexity_tier: null, complexity_score: null });
    // The same request under the key whose rules read the tier is classified, once.
    expect(await modelFor("classified-once", { messages: [{ role: "user", content: "prove that the square root of 7 is irrational" }] })).toBe(TIER_MODELS.reasoning);
    expect(classifier).toHaveBeenCalledTimes(1);
  } finally {
    classifier.mockRestore();
  }
});

test("analytics group requests by complexity tier", async () => {
  const start = new Date(Date.now() - 3_600_000).toISOString();
  const series = (await (await gw.admin(`/api/logs/series?group_by=complexity_tier&start_time=${start}`)).json()) as { groups: Array<{ key: string; requests: number[] }> };
  const requests = Object.fromEntries(series.groups.map((group) => [group.key, group.requests.reduce((sum, count) => sum + count, 0)]));
  expect(Object.keys(requests).sort()).toEqual(["complex", "medium", "reasoning", "simple"]);
  expect(requests.simple).toBeGreaterThanOrEqual(2);
});

describe("a classifier model, asked last", () => {
  const JUDGE = "tier-judge";
  const judged = () => upstream.requests.filter((request) => request.body.model === JUDGE);
  let verdict: { status: number; content: string } = { status: 200, content: "reasoning" };

  beforeAll(async () => {
    upstream.onRequest = (request) => {
      if (request.body.model !== JUDGE) return;
      const reply = { id: "chatcmpl-judge", object: "chat.completion", created: 1, model: JUDGE, choices: [{ index: 0, message: { role: "assistant", content: verdict.content }, finish_reason: "stop" }], usage: { prompt_tokens: 40, completion_tokens: 1, total_tokens: 41 } };
      upstream.faults.unshift(verdict.status === 200 ? { kind: "body", body: JSON.stringify(reply), contentType: "application/json" } : { kind: "status", status: verdict.status });
    };
    await expectGatewayError(await gw.admin("/api/governance/complexity", { method: "PUT", json: { classifier_model: "nowhere/judge" } }), 400, { param: "classifier_model" });
    const written = (await (await gw.admin("/api/governance/complexity", { method: "PUT", json: { classifier_model: `openai/${JUDGE}` } })).json()) as { complexity: { classifier_model: string } };
    expect(written.complexity.classifier_model).toBe(`openai/${JUDGE}`);
  });
  afterAll(async () => {
    upstream.onRequest = undefined;
    const cleared = (await (await gw.admin("/api/governance/complexity", { method: "PUT", json: { classifier_model: null } })).json()) as { complexity: { classifier_model: string | null } };
    expect(cleared.complexity.classifier_model).toBeNull();
    await gw.admin("/api/governance/complexity", { method: "DELETE" });
  });

  test("places a request nothing else does: its answer routes it, and its call is logged as the gateway's own", async () => {
    const before = judged().length;
    expect(await modelFor("judged", { messages: [{ role: "user", content: "zorblax quivvers the mantlepod" }] })).toBe(TIER_MODELS.reasoning);
    expect(judged().length).toBe(before + 1);
    const asked = judged().at(-1)!.body.messages as Array<{ role: string; content: string }>;
    expect(asked[0]!.content).toContain("simple, medium, complex, reasoning");
    expect(asked[1]!.content).toBe("zorblax quivvers the mantlepod");
    expect((await loggedRequest(gw, "judged")).complexity_tier).toBe("reasoning");
    const own = (await (await gw.admin("/api/logs?origin=gateway&limit=1")).json()) as { logs: Array<{ model: string; internal_caller: string }> };
    expect(own.logs[0]).toMatchObject({ model: JUDGE, internal_caller: "complexity-classifier" });
  });

  test("is not asked about a request the signals or references place", async () => {
    const before = judged().length;
    expect(await modelFor("not-judged", { messages: [{ role: "user", content: "plan the offsite" }], reasoning_effort: "high" })).toBe(TIER_MODELS.reasoning);
    expect(await modelFor("not-judged-2", { messages: [{ role: "user", content: "what's the capital of Italy?" }] })).toBe(TIER_MODELS.simple);
    expect(judged().length).toBe(before);
  });

  test("one that fails leaves the signals' tier", async () => {
    verdict = { status: 500, content: "" };
    expect(await modelFor("judge-down", { messages: [{ role: "user", content: "flimflam the gorbule" }] })).toBe(TIER_MODELS.simple);
    verdict = { status: 200, content: "reasoning" };
  });
});

describe("tiers and reference prompts are replaced through the API", () => {
  test("the shipped ones are listed; a reference naming no tier is a 400 naming it", async () => {
    const shipped = (await (await gw.admin("/api/governance/complexity")).json()) as { tiers: string[]; references: unknown[]; customized: boolean };
    expect(shipped).toMatchObject({ tiers: ["simple", "medium", "complex", "reasoning"], customized: false });
    expect(shipped.references.length).toBeGreaterThan(40);
    const refused = await gw.admin("/api/governance/complexity", { method: "PUT", json: { tiers: ["cheap", "premium"], references: [{ text: "hello", tier: "cheap" }, { text: "a sonnet", tier: "gold" }] } });
    await expectGatewayError(refused, 400, { param: "references[1].tier" });
  });

  test("new tiers and references route by the new names, and a reset brings the shipped ones back", async () => {
    const references = [
      { text: "write a sonnet about the sea in iambic pentameter", tier: "premium" },
      { text: "write a villanelle about autumn leaves", tier: "premium" },
      { text: "hello there", tier: "cheap" },
    ];
    const written = await gw.admin("/api/governance/complexity", { method: "PUT", json: { tiers: ["cheap", "premium"], references } });
    expect(written.status).toBe(200);
    const key = await createVirtualKey(gw, { name: "two tiers" });
    await created(gw, "/api/governance/routing-rules", { name: "premium", scope: "virtual_key", scope_id: key.id, cel_expression: 'complexity_tier == "premium"', targets: [{ provider: "openai", model: "poet-model" }] });
    const send = async (content: string) => (await (await chat(gw, key.value, { messages: [{ role: "user", content }] }, { "x-gw-session-id": content })).arrayBuffer(), upstream.requests.at(-1)!.body.model);
    expect(await send("write a sonnet about the moon")).toBe("poet-model");
    expect(await send("hello")).toBe("gpt-4o-mini");
    const classified = await (await gw.admin("/api/governance/complexity/classify", { method: "POST", json: { body: { messages: [{ role: "user", content: "a villanelle about spring" }] } } })).json();
    expect(classified).toMatchObject({ tier: "premium", by: "references" });
    const reset = (await (await gw.admin("/api/governance/complexity", { method: "DELETE" })).json()) as { complexity: { tiers: string[]; customized: boolean } };
    expect(reset.complexity).toMatchObject({ tiers: ["simple", "medium", "complex", "reasoning"], customized: false });
  });
});
