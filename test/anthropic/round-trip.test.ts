import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { type AnthropicFixture, startAnthropicFixture } from "./fixture";

let fixture: AnthropicFixture;
let client: Anthropic;

/**
 * `relay` is an OpenAI-type provider whose base URL is the gateway's own /v1. A request to
 * `relay/anthropic/<model>` is translated Anthropic -> OpenAI, enters /v1/chat/completions,
 * is translated OpenAI -> Anthropic for the mock, and its answer takes the same two hops back:
 * every codec direction, JSON and stream, in one request.
 */
beforeAll(async () => {
  fixture = await startAnthropicFixture();
  const created = await fixture.gw.admin("/api/providers", {
    method: "POST",
    json: { provider: "relay", keys: [{ id: "relay-1", value: "unused" }], network_config: { base_url: `${fixture.gw.url}/v1` }, custom_provider_config: { base_provider_type: "openai" } },
  });
  expect(created.status).toBe(201);
  client = new Anthropic({ baseURL: `${fixture.gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
});
afterAll(() => fixture.close());

const weatherTool = { name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
const user = (content: string) => [{ role: "user" as const, content }];

const CASES: Array<{ reason: Anthropic.StopReason; params: Partial<Anthropic.MessageCreateParamsNonStreaming> }> = [
  { reason: "end_turn", params: { messages: user("plain words") } },
  { reason: "max_tokens", params: { max_tokens: 2, messages: user("one two three four") } },
  { reason: "stop_sequence", params: { stop_sequences: ["three"], messages: user("one two three four") } },
  { reason: "tool_use", params: { tools: [weatherTool], messages: user("what is the weather?") } },
  { reason: "pause_turn", params: { messages: user("[stop_reason:pause_turn] long search") } },
  { reason: "refusal", params: { messages: user("[stop_reason:refusal] something refused") } },
  { reason: "model_context_window_exceeded", params: { messages: user("[stop_reason:model_context_window_exceeded] huge") } },
];

const observable = (message: Anthropic.Message) => ({ content: message.content, stop_reason: message.stop_reason, stop_sequence: message.stop_sequence, usage: message.usage });

describe("every stop_reason of spec 2.8 round-trips through the OpenAI format", () => {
  for (const { reason, params } of CASES) {
    test(`${reason}: JSON and streamed, the relayed message equals the direct one`, async () => {
      const request = { max_tokens: 256, messages: [], ...params };
      const direct = await client.messages.create({ ...request, model: "claude-sonnet-5-5" });
      const relayed = await client.messages.create({ ...request, model: "relay/anthropic/claude-sonnet-5-5" });
      const streamed = await client.messages.stream({ ...request, model: "relay/anthropic/claude-sonnet-5-5" }).finalMessage();
      expect(direct.stop_reason).toBe(reason);
      expect(observable(relayed)).toEqual(observable(direct));
      expect(observable(streamed)).toEqual(observable(direct));
    });
  }
});

describe("thinking survives the OpenAI format both ways", () => {
  test("thinking with its signature and redacted thinking: the relayed message equals the direct one, JSON and streamed", async () => {
    const request = { max_tokens: 2048, thinking: { type: "enabled" as const, budget_tokens: 1024 }, messages: user("reason about redacted matters") };
    const direct = await client.messages.create({ ...request, model: "claude-sonnet-5-5" });
    const relayed = await client.messages.create({ ...request, model: "relay/anthropic/claude-sonnet-5-5" });
    const streamed = await client.messages.stream({ ...request, model: "relay/anthropic/claude-sonnet-5-5" }).finalMessage();
    expect(direct.content.map((block) => block.type)).toEqual(["thinking", "redacted_thinking", "text"]);
    expect(observable(relayed)).toEqual(observable(direct));
    expect(observable(streamed)).toEqual(observable(direct));
  });

  test("a signed thinking block sent back in the conversation reaches Anthropic with its signature", async () => {
    const first = await client.messages.create({ max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 }, model: "relay/anthropic/claude-sonnet-5-5", messages: user("first thought") });
    const reply = await client.messages.create({
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      model: "relay/anthropic/claude-sonnet-5-5",
      messages: [...user("first thought"), { role: "assistant", content: first.content }, ...user("second thought")],
    });
    expect(reply.stop_reason).toBe("end_turn");
    const history = fixture.anthropicUpstream.requests.at(-1)!.body.messages as Array<{ content: unknown }>;
    expect(history[1]!.content).toEqual(first.content);
  });
});
