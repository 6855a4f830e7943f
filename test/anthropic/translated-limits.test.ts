import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

// Claude Code (the Anthropic SDK) sent to an OpenAI model: its max_tokens meets the model's known
// output limit, and its message_start counts input tokens the upstream reports only at the end.

let upstream: MockOpenAI;
let gw: TestGateway;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
  anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** The output cap the upstream was sent, in whichever OpenAI field carries it. */
const sentCap = () => {
  const body = upstream.requests.at(-1)!.body;
  return body.max_completion_tokens ?? body.max_tokens;
};

describe("max_tokens above the target model's known output limit", () => {
  // (The SDK sends more than ~21,000 only streamed, as Claude Code does.)
  test("is lowered to the limit when translated (gpt-4o-mini writes 16,384 at most), and a response header says so", async () => {
    const { data, response } = await anthropic.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 20000, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(data.content).toMatchObject([{ type: "text", text: "echo: hello" }]);
    expect(sentCap()).toBe(16384);
    expect(response.headers.get("x-gw-max-tokens-clamped")).toBe("20000 -> 16384");
  });

  test("streamed too", async () => {
    const stream = anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 32000, messages: [{ role: "user", content: "streamed" }] });
    const { response } = await stream.withResponse();
    await stream.finalMessage();
    expect(sentCap()).toBe(16384);
    expect(response.headers.get("x-gw-max-tokens-clamped")).toBe("32000 -> 16384");
  });

  test("a cap within the limit, a model the catalogue does not know, and a same-format request are sent as asked, without the header", async () => {
    const within = await anthropic.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(sentCap()).toBe(1000);
    expect(within.response.headers.get("x-gw-max-tokens-clamped")).toBeNull();
    await anthropic.messages.create({ model: "openai/some-model-nobody-lists", max_tokens: 20000, messages: [{ role: "user", content: "hi" }] });
    expect(sentCap()).toBe(20000);
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const same = await openai.chat.completions.create({ model: "openai/gpt-4o-mini", max_tokens: 32000, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(sentCap()).toBe(32000);
    expect(same.response.headers.get("x-gw-max-tokens-clamped")).toBeNull();
  });
});

describe("input tokens in message_start from an OpenAI upstream", () => {
  test("are estimated when the stream opens, and message_delta brings the upstream's count", async () => {
    const content = "one two three four five six seven";
    const stream = anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content }] });
    // Read as it comes: the SDK updates the message_start snapshot with message_delta's counts.
    let startedWith: number | undefined;
    let delta: Anthropic.MessageDeltaEvent | undefined;
    for await (const event of stream) {
      if (event.type === "message_start") startedWith = event.message.usage.input_tokens;
      if (event.type === "message_delta") delta = event;
    }
    // The mock counts a prompt's words; the estimate counts tokens of the whole conversation.
    expect(startedWith).toBeGreaterThan(0);
    expect(delta!.usage.input_tokens).toBe(7);
    expect((await stream.finalMessage()).usage.input_tokens).toBe(7);
  });

  test("once count_tokens has loaded the tokenizer, message_start says what count_tokens says", async () => {
    const messages = [{ role: "user" as const, content: "how many tokens is this sentence, more or less?" }];
    const counted = await anthropic.messages.countTokens({ model: "openai/gpt-4o-mini", messages });
    for await (const event of anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages })) {
      if (event.type === "message_start") expect(event.message.usage.input_tokens).toBe(counted.input_tokens);
    }
  });

  test("a longer prompt is estimated higher", async () => {
    const startOf = async (content: string) => {
      for await (const event of anthropic.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content }] })) {
        if (event.type === "message_start") return event.message.usage.input_tokens;
      }
      throw new Error("no message_start");
    };
    expect(await startOf("word ".repeat(400))).toBeGreaterThan((await startOf("word")) + 300);
  });
});
