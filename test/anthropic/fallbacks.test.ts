import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { type AnthropicFixture, startAnthropicFixture } from "./fixture";

let fixture: AnthropicFixture;
let client: Anthropic;

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  client = new Anthropic({ baseURL: `${fixture.gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
});
afterAll(() => fixture.close());

describe("fallbacks on the Anthropic mount", () => {
  test("fallbacks in the body: a failing Anthropic model falls back to an OpenAI model, answered in Anthropic's format", async () => {
    fixture.anthropicUpstream.faults.push({ kind: "status", status: 500 });
    const params = { model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user" as const, content: "rescue me" }], fallbacks: ["openai/gpt-4o-mini"] };
    const { data, response } = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming).withResponse();
    expect(data.content).toMatchObject([{ type: "text", text: "echo: rescue me" }]);
    expect(data.stop_reason).toBe("end_turn");
    expect(response.headers.get("x-gw-provider")).toBe("openai");
    expect(fixture.anthropicUpstream.requests.at(-1)!.body.fallbacks).toBeUndefined();
    expect(fixture.openaiUpstream.requests.at(-1)!.body.fallbacks).toBeUndefined();
  });

  test("fallbacks in the x-gw-fallbacks header, streamed", async () => {
    fixture.anthropicUpstream.faults.push({ kind: "status", status: 503 });
    const stream = client.messages.stream(
      { model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: "stream rescue" }] },
      { headers: { "x-gw-fallbacks": "openai/gpt-4o-mini" } },
    );
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: "text", text: "echo: stream rescue" }]);
  });

  test("an OpenAI primary falls back to an Anthropic model, whose reply passes through", async () => {
    fixture.openaiUpstream.faults.push({ kind: "status", status: 500 });
    const { data, response } = await client.messages
      .create({ model: "openai/gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "the other way" }] }, { headers: { "x-gw-fallbacks": "anthropic/claude-sonnet-5-5" } })
      .withResponse();
    expect(data.id).toStartWith("msg_mock_");
    expect(response.headers.get("x-gw-provider")).toBe("anthropic");
  });

  test("when every target fails, the primary's error comes back with every attempt in routing_info", async () => {
    fixture.anthropicUpstream.faults.push({ kind: "status", status: 500, message: "primary down" });
    fixture.openaiUpstream.faults.push({ kind: "status", status: 503, message: "fallback down" });
    const failure = await client.messages
      .create({ model: "claude-sonnet-5-5", max_tokens: 64, messages: [{ role: "user", content: "doomed" }] }, { headers: { "x-gw-fallbacks": "openai/gpt-4o-mini" } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.InternalServerError);
    const body = (failure as InstanceType<typeof Anthropic.APIError>).error as { error: { message: string }; extra_fields: { routing_info: { attempts: Array<{ provider: string; status: number }> } } };
    expect(body.error.message).toBe("primary down");
    expect(body.extra_fields.routing_info.attempts.map(({ provider, status }) => ({ provider, status }))).toEqual([
      { provider: "anthropic", status: 500 },
      { provider: "openai", status: 503 },
    ]);
  });
});
