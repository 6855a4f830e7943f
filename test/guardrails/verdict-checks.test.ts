import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { openAIProvider } from "../governance/support";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { keyWithGuardrail } from "./support";

let upstream: MockOpenAI;
/** The model the model-based checks ask, on a provider of its own. */
let judge: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  judge = startMockOpenAI();
  gw = await startGateway({ providers: { openai: openAIProvider(upstream), judge: { ...openAIProvider(judge, [{ id: "j1" }]), custom_provider_config: { base_provider_type: "openai" } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  judge.stop();
});

const ask = (client: OpenAI, content: string, extra: Record<string, unknown> = {}) =>
  client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming);
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
const judgeSays = (verdict: string) =>
  judge.faults.push({ kind: "body", contentType: "application/json", body: JSON.stringify({ id: "j", object: "chat.completion", created: 0, model: "judge", choices: [{ index: 0, message: { role: "assistant", content: verdict }, finish_reason: "stop" }] }) });

describe("json_schema fails a reply that does not meet the schema", () => {
  test("the request's response_format schema: an answer missing a required field is a 422, a conforming one passes", async () => {
    const { client } = await keyWithGuardrail(gw, "schema-from-request", { checks: [{ type: "json_schema", stage: "output" }] });
    const responseFormat = (required: string) => ({ type: "json_schema", json_schema: { name: "r", schema: { type: "object", required: [required], properties: { [required]: { type: "string" } } } } });
    // The mock answers {"answer": ...} when a response_format is asked for.
    expect((await ask(client, "hello", { response_format: responseFormat("answer") })).choices[0]!.message.content).toBe(JSON.stringify({ answer: "echo: hello" }));
    const error = await failure(ask(client, "hello", { response_format: responseFormat("city") }));
    expect(error?.status).toBe(422);
    expect(error?.message).toContain("check 'json_schema'");
  });

  test("a schema in the check: plain text is not JSON and fails it", async () => {
    const { client } = await keyWithGuardrail(gw, "schema-in-check", { checks: [{ type: "json_schema", stage: "output", schema: { type: "object" } }] });
    expect((await failure(ask(client, "plain words")))?.status).toBe(422);
    // The log shows the answer the client got, not the upstream's 200.
    expect(await loggedRequest(gw, "schema-in-check")).toMatchObject({ status: "error", status_code: 422, error_type: "policy_guardrail_blocked" });
  });
});

describe("a model-based check asks a model through the gateway and acts on its verdict", () => {
  const policy = (extra: Record<string, unknown> = {}) => ({ checks: [{ type: "model", name: "judge", model: "judge/gpt-4o-mini", prompt: "Reply BLOCK or ALLOW.", stage: "input", ...extra }] });

  test("BLOCK blocks before the upstream; ALLOW lets the request through; the checking model sees the prompt and the text", async () => {
    const { client } = await keyWithGuardrail(gw, "model-check", policy());
    const before = upstream.requests.length;
    judgeSays("BLOCK");
    const error = await failure(ask(client, "something bad"));
    expect(error?.status).toBe(400);
    expect(upstream.requests.length).toBe(before);
    expect(judge.requests.at(-1)!.body.messages).toEqual([
      { role: "system", content: "Reply BLOCK or ALLOW." },
      { role: "user", content: "something bad" },
    ]);
    judgeSays("ALLOW");
    expect((await ask(client, "something fine")).choices[0]!.message.content).toBe("echo: something fine");
  });

  test.each([
    [false, "passes"],
    [true, "is blocked"],
  ])("a checker that times out: fail_closed %p, the request %s", async (failClosed) => {
    const { client } = await keyWithGuardrail(gw, `model-timeout-${failClosed}`, policy({ timeout_ms: 100, fail_closed: failClosed }));
    judge.faults.push({ kind: "delay", ms: 3_000 });
    const result = await failure(ask(client, "anyone there?"));
    if (failClosed) expect(result?.status).toBe(400);
    else expect(result).toBeUndefined();
  });

  test("a moderation endpoint: a flagged result blocks, an unflagged one allows", async () => {
    const { client } = await keyWithGuardrail(gw, "moderation", { checks: [{ type: "model", endpoint: "moderation", model: "judge/omni-moderation-latest", stage: "input", fail_closed: true }] });
    const moderation = (flagged: boolean) => judge.faults.push({ kind: "body", contentType: "application/json", body: JSON.stringify({ id: "modr", model: "omni-moderation-latest", results: [{ flagged, categories: {}, category_scores: {} }] }) });
    moderation(true);
    expect((await failure(ask(client, "something flagged")))?.status).toBe(400);
    expect(judge.requests.at(-1)).toMatchObject({ path: "/v1/moderations", body: { model: "omni-moderation-latest", input: "something flagged" } });
    moderation(false);
    expect((await ask(client, "something fine")).choices[0]!.message.content).toBe("echo: something fine");
  });

  test("two model checks ask at the same time", async () => {
    const { client } = await keyWithGuardrail(gw, "model-parallel", {
      checks: [
        { type: "model", name: "first", model: "judge/gpt-4o-mini", stage: "input", timeout_ms: 2_000, fail_closed: true },
        { type: "model", name: "second", model: "judge/gpt-4o-mini", stage: "input", timeout_ms: 2_000, fail_closed: true },
      ],
    });
    const bothArrived = Promise.withResolvers<void>();
    let arrived = 0;
    // Neither is answered until both are waiting: checks asked one after the other would time out (and, failing closed, block).
    judge.onRequest = () => {
      if (++arrived === 2) bothArrived.resolve();
      return bothArrived.promise;
    };
    judgeSays("ALLOW");
    judgeSays("ALLOW");
    try {
      expect((await ask(client, "check me twice")).choices[0]!.message.content).toBe("echo: check me twice");
    } finally {
      judge.onRequest = undefined;
    }
  });
});

describe("an external check over HTTP", () => {
  let checker: ReturnType<typeof Bun.serve>;
  const received: unknown[] = [];
  beforeAll(() => {
    checker = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = (await request.json()) as { text: string };
        received.push(body);
        return Response.json({ verdict: body.text.includes("forbidden") ? "block" : "allow" });
      },
    });
  });
  afterAll(() => checker.stop(true));

  test("its verdict blocks or allows; it gets the text and the stage", async () => {
    const { client } = await keyWithGuardrail(gw, "http-check", { checks: [{ type: "http", url: `http://127.0.0.1:${checker.port}/verdict`, allow_private_network: true, stage: "input" }] });
    expect((await failure(ask(client, "a forbidden topic")))?.status).toBe(400);
    expect(received.at(-1)).toMatchObject({ text: "a forbidden topic", stage: "input" });
    expect((await ask(client, "a fine topic")).choices[0]!.message.content).toBe("echo: a fine topic");
  });

  test("a loopback checker is refused when written unless allowed; its address is stored as the URL parser reads it", async () => {
    const refused = await gw.admin("/api/guardrails", { method: "POST", json: { name: "http-refused", checks: [{ type: "http", url: `http://127.0.0.1:${checker.port}/verdict`, stage: "input" }] } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("checks[0].url");
    const { guardrail } = await keyWithGuardrail(gw, "http-spelled", { checks: [{ type: "http", url: `http://127.1:${checker.port}/verdict`, allow_private_network: true, stage: "input" }] });
    expect((guardrail as { checks: Array<{ url: string }> }).checks[0]!.url).toBe(`http://127.0.0.1:${checker.port}/verdict`);
  });

  test("a checker that cannot be reached fails closed when told", async () => {
    const count = received.length;
    const { client } = await keyWithGuardrail(gw, "http-unreachable", { checks: [{ type: "http", url: "http://127.0.0.1:9/verdict", allow_private_network: true, fail_closed: true, stage: "input" }] });
    expect((await failure(ask(client, "a fine topic")))?.status).toBe(400);
    expect(received.length).toBe(count);
  });
});

describe("length, language, patterns and words", () => {
  test("a prompt over max_tokens is blocked; one under passes", async () => {
    const { client } = await keyWithGuardrail(gw, "tokens", { checks: [{ type: "length", max_tokens: 5, stage: "input" }] });
    expect((await failure(ask(client, "one two three four five six seven eight")))?.status).toBe(400);
    expect((await ask(client, "one two")).choices[0]!.message.content).toBe("echo: one two");
  });

  test("a denied language is blocked", async () => {
    const { client } = await keyWithGuardrail(gw, "language", { checks: [{ type: "language", allowed_languages: ["en"], stage: "input" }] });
    expect((await failure(ask(client, "Bonjour, je voudrais réserver une table pour deux personnes ce soir s'il vous plaît.")))?.status).toBe(400);
    expect((await ask(client, "Hello, I would like to book a table for two people tonight please.")).choices[0]!.message.content).toContain("book a table");
  });

  test("an RE2 pattern and a word list redact with their labels; a log-only check changes nothing and is recorded", async () => {
    const { client } = await keyWithGuardrail(gw, "custom", {
      checks: [
        { type: "regex", pattern: "ORD-[0-9]{6}", label: "ORDER", action: "redact", stage: "input" },
        { type: "word_list", words: ["project falcon"], label: "CODENAME", action: "redact", stage: "input" },
        { type: "word_list", name: "rude", words: ["darn"], action: "log", stage: "input" },
      ],
    });
    await ask(client, "Darn, Project Falcon order ORD-123456 is late");
    expect(JSON.stringify(upstream.requests.at(-1)!.body.messages)).toContain("Darn, [CODENAME_1] order [ORDER_1] is late");
    const row = await loggedRequest(gw, "custom");
    expect(row.guardrails).toContainEqual({ guardrail: "custom", check: "rude", stage: "input", action: "log", matches: 1 });
  });
});
