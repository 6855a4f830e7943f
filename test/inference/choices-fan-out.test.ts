import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockBedrock, type MockBedrockAuth, startMockBedrock } from "../support/mock-bedrock";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";

/**
 * OpenAI's `n` asks a chat for several choices. Anthropic's and Cohere's APIs answer one a call,
 * so the gateway asks them n times, each for one, and answers one chat completion whose choices
 * are theirs, with the tokens of every call.
 */

const ANTHROPIC_KEY = "sk-ant-choices-0001";
const COHERE_KEY = "cohere-choices-0001";
const AWS: MockBedrockAuth = { accessKeyId: "AKIAMOCKCHOICES", secretAccessKey: "choices-secret-key-0123456789", sessionToken: "choices-session", region: "us-west-2", apiKey: "unused" };
const BEDROCK_MODEL = "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0";

let anthropic: MockAnthropic;
let cohere: MockCohere;
let bedrock: MockBedrock;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  cohere = startMockCohere(COHERE_KEY);
  bedrock = startMockBedrock(AWS);
  gw = await startGateway({
    providers: {
      bedrock: {
        keys: [{ id: "aws", models: ["*"], bedrock_key_config: { access_key: AWS.accessKeyId, secret_key: AWS.secretAccessKey, session_token: AWS.sessionToken, region: AWS.region } }],
        network_config: { base_url: bedrock.url },
      },
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl, max_retries: 0 } },
      cohere: { keys: [{ id: "co", value: COHERE_KEY }], network_config: { base_url: cohere.baseUrl } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  cohere.stop();
  bedrock.stop();
});

const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "name a colour" }];

describe("n choices from a model that answers one a call", () => {
  test("Claude: n calls, each asking for one, answered as n choices with the tokens of all", async () => {
    const before = anthropic.requests.length;
    const single = await client.chat.completions.create({ model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages });
    const several = await client.chat.completions.create({ model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 3 }, { headers: { "x-gw-metadata-case": "claude-three-choices" } });
    const calls = anthropic.requests.slice(before + 1);
    expect(calls.map((call) => call.path)).toEqual(Array(3).fill("/v1/messages"));
    for (const call of calls) expect(call.body).not.toHaveProperty("n");
    expect(several.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    expect(several.choices.map((choice) => choice.message.content)).toEqual(Array(3).fill(single.choices[0]!.message.content));
    expect(several.choices.every((choice) => choice.finish_reason === single.choices[0]!.finish_reason)).toBe(true);
    expect(several.usage).toMatchObject({ prompt_tokens: 3 * single.usage!.prompt_tokens, completion_tokens: 3 * single.usage!.completion_tokens, total_tokens: 3 * single.usage!.total_tokens });
    expect(await loggedRequest(gw, "claude-three-choices")).toMatchObject({ provider: "anthropic", status: "success", input_tokens: 3 * single.usage!.prompt_tokens, output_tokens: 3 * single.usage!.completion_tokens });
  });

  test("Cohere, which refused n before, answers it the same way", async () => {
    const several = await client.chat.completions.create({ model: "cohere/command-r-plus", messages, n: 2 });
    expect(several.choices.map((choice) => choice.index)).toEqual([0, 1]);
    expect(cohere.requests.slice(-2).every((request) => request.path === "/v2/chat")).toBe(true);
  });

  test("one refused call fails the request with the provider's error, as a single call's would", async () => {
    anthropic.faults.push({ kind: "status", status: 400, message: "prompt is too long" });
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 2 });
    const body = await expectGatewayError(response, 400);
    expect(JSON.stringify(body)).toContain("prompt is too long");
  });

  test("an n the API does not take is refused: a 400 naming n, no call made", async () => {
    const before = anthropic.requests.length;
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 2.5 }), 400, { param: "n" });
    expect(anthropic.requests.length).toBe(before);
  });

  test("streamed: each call's events become its choice's, under one id, with the usage of all when asked", async () => {
    const single = await client.chat.completions.create({ model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages });
    const before = anthropic.requests.length;
    const stream = await client.chat.completions.create(
      { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 3, stream: true, stream_options: { include_usage: true } },
      { headers: { "x-gw-metadata-case": "claude-streamed-choices" } },
    );
    const texts = ["", "", ""];
    const finishReasons: string[] = [];
    const ids = new Set<string>();
    const usages: OpenAI.CompletionUsage[] = [];
    for await (const chunk of stream) {
      ids.add(chunk.id);
      for (const choice of chunk.choices) {
        texts[choice.index] += choice.delta.content ?? "";
        if (choice.finish_reason) finishReasons[choice.index] = choice.finish_reason;
      }
      if (chunk.usage) usages.push(chunk.usage);
    }
    expect(anthropic.requests.slice(before).map((call) => call.body.stream)).toEqual([true, true, true]);
    expect(texts).toEqual(Array(3).fill(single.choices[0]!.message.content));
    expect(finishReasons).toEqual(Array(3).fill(single.choices[0]!.finish_reason));
    expect(ids.size).toBe(1);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({ prompt_tokens: 3 * single.usage!.prompt_tokens, completion_tokens: 3 * single.usage!.completion_tokens });
    expect(await loggedRequest(gw, "claude-streamed-choices")).toMatchObject({ status: "success", stream: true, input_tokens: 3 * single.usage!.prompt_tokens, output_tokens: 3 * single.usage!.completion_tokens });
  });

  test("streamed without asking for usage: no usage chunk, one [DONE] (Cohere's events)", async () => {
    const single = await client.chat.completions.create({ model: "cohere/command-r-plus", messages });
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "cohere/command-r-plus", messages, n: 2, stream: true });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: "));
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice("data: ".length)) as OpenAI.ChatCompletionChunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    const texts = ["", ""];
    for (const chunk of chunks) for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? "";
    expect(texts).toEqual(Array(2).fill(single.choices[0]!.message.content));
  });

  test("Bedrock, whose replies name no model: joined choices, streamed (from its binary event stream) or not, under the target's model", async () => {
    const single = await client.chat.completions.create({ model: BEDROCK_MODEL, max_tokens: 50, messages });
    const joined = await client.chat.completions.create({ model: BEDROCK_MODEL, max_tokens: 50, messages, n: 2 });
    expect(joined.model).toBe(BEDROCK_MODEL.slice("bedrock/".length));
    const stream = await client.chat.completions.create({ model: BEDROCK_MODEL, max_tokens: 50, messages, n: 2, stream: true, stream_options: { include_usage: true } });
    const texts = ["", ""];
    const models = new Set<string>();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      models.add(chunk.model);
      for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? "";
      usage ??= chunk.usage ?? undefined;
    }
    expect(texts).toEqual(Array(2).fill(single.choices[0]!.message.content));
    expect([...models]).toEqual([BEDROCK_MODEL.slice("bedrock/".length)]);
    expect(usage?.total_tokens).toBe(2 * single.usage!.total_tokens);
  });

  test("a streamed call that fails fails the request as a single call's would", async () => {
    anthropic.faults.push({ kind: "drop" });
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 2, stream: true }), 502);
  });
});
