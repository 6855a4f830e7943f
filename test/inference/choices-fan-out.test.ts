import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";

/**
 * OpenAI's `n` asks a chat for several choices. Anthropic's and Cohere's APIs answer one a call,
 * so the gateway asks them n times, each for one, and answers one chat completion whose choices
 * are theirs, with the tokens of every call.
 */

const ANTHROPIC_KEY = "sk-ant-choices-0001";
const COHERE_KEY = "cohere-choices-0001";

let anthropic: MockAnthropic;
let cohere: MockCohere;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  cohere = startMockCohere(COHERE_KEY);
  gw = await startGateway({
    providers: {
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

  test("several choices are not streamed from such a model, and an n the API does not take is refused: a 400 naming n, no call made", async () => {
    const before = anthropic.requests.length;
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 2, stream: true }), 400, { param: "n" });
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "anthropic/claude-sonnet-4-5", max_tokens: 50, messages, n: 2.5 }), 400, { param: "n" });
    expect(anthropic.requests.length).toBe(before);
  });
});
