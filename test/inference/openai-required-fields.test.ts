import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { expectChatCompletion, missingFields } from "../support/openai-required-fields";

/**
 * The OpenAI-format replies the gateway writes itself, translated from another provider's, carry
 * every field OpenAI's OpenAPI document marks required: strict clients (generated ones, typed
 * decoders) refuse a reply without them even where the value would be null.
 */

let gw: TestGateway;
let anthropic: MockAnthropic;
let gemini: MockGemini;
beforeAll(async () => {
  anthropic = startMockAnthropic("sk-ant-upstream");
  gemini = startMockGemini();
  gw = await startGateway({
    providers: {
      anthropic: { keys: [{ id: "ant", value: "sk-ant-upstream" }], network_config: { base_url: anthropic.baseUrl } },
      gemini: { keys: [{ id: "g", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  gemini.stop();
});

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The `data:` events of an SSE body, parsed. */
async function events(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);
}

const WEATHER_TOOL = { type: "function", function: { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } } };

describe("chat completions translated from Anthropic", () => {
  test("a text reply has choices[].logprobs and message.refusal, null", async () => {
    const reply = await post("/v1/chat/completions", { model: "anthropic/claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hello" }] });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { choices: Array<{ logprobs: unknown; message: { refusal: unknown } }> };
    expectChatCompletion(body);
    expect(body.choices[0]!.logprobs).toBeNull();
    expect(body.choices[0]!.message.refusal).toBeNull();
  });

  test("a tool call reply carries every required field of the call", async () => {
    const reply = await post("/v1/chat/completions", { model: "anthropic/claude-sonnet-4-5", max_tokens: 64, tools: [WEATHER_TOOL], messages: [{ role: "user", content: "what is the weather? use the tool" }] });
    const body = (await reply.json()) as { choices: Array<{ finish_reason: string; message: { tool_calls?: unknown[] } }> };
    expect(body.choices[0]!.finish_reason).toBe("tool_calls");
    expect(body.choices[0]!.message.tool_calls).toHaveLength(1);
    expectChatCompletion(body);
  });

  test("every chunk of a stream has its required fields", async () => {
    const reply = await post("/v1/chat/completions", { model: "anthropic/claude-sonnet-4-5", max_tokens: 64, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "stream please" }] });
    const chunks = await events(reply);
    expect(chunks.length).toBeGreaterThan(1);
    const missing = chunks.flatMap((chunk) => [
      ...missingFields("CreateChatCompletionStreamResponse", chunk),
      ...((chunk.choices ?? []) as unknown[]).flatMap((choice) => missingFields("CreateChatCompletionStreamResponse.choices[]", choice)),
    ]);
    expect(missing).toEqual([]);
  });
});

describe("Responses written for a provider without the Responses API", () => {
  test("a response has output[].content[].logprobs and usage.input_tokens_details", async () => {
    const reply = await post("/v1/responses", { model: "anthropic/claude-sonnet-4-5", max_output_tokens: 64, input: "hello", store: false });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { output: Array<Record<string, unknown> & { type: string; content?: unknown[] }>; usage: Record<string, unknown> };
    const messages = body.output.filter((item) => item.type === "message");
    expect(messages.length).toBe(1);
    expect([
      ...missingFields("Response", body),
      ...messages.flatMap((item) => missingFields("OutputMessage", item)),
      ...messages.flatMap((item) => (item.content ?? []).flatMap((part) => missingFields("OutputTextContent", part))),
      ...missingFields("ResponseUsage", body.usage),
      ...missingFields("ResponseUsage.input_tokens_details", body.usage.input_tokens_details),
      ...missingFields("ResponseUsage.output_tokens_details", body.usage.output_tokens_details),
    ]).toEqual([]);
  });

  test("a function call item has its required fields", async () => {
    const reply = await post("/v1/responses", {
      model: "anthropic/claude-sonnet-4-5",
      max_output_tokens: 64,
      store: false,
      tools: [{ type: "function", name: "get_weather", parameters: WEATHER_TOOL.function.parameters }],
      input: "what is the weather? use the tool",
    });
    const body = (await reply.json()) as { output: Array<Record<string, unknown> & { type: string }> };
    const calls = body.output.filter((item) => item.type === "function_call");
    expect(calls).toHaveLength(1);
    expect(calls.flatMap((call) => missingFields("FunctionToolCall", call))).toEqual([]);
  });

  test("text delta and done events of a stream carry logprobs, and the parts they announce too", async () => {
    const reply = await post("/v1/responses", { model: "anthropic/claude-sonnet-4-5", max_output_tokens: 64, input: "stream please", stream: true, store: false });
    const all = await events(reply);
    const deltas = all.filter((event) => event.type === "response.output_text.delta");
    const done = all.filter((event) => event.type === "response.output_text.done");
    const parts = all.filter((event) => event.type === "response.content_part.added" || event.type === "response.content_part.done").map((event) => event.part);
    expect(deltas.length).toBeGreaterThan(0);
    expect(done).toHaveLength(1);
    expect([
      ...deltas.flatMap((event) => missingFields("ResponseTextDeltaEvent", event)),
      ...done.flatMap((event) => missingFields("ResponseTextDoneEvent", event)),
      ...parts.flatMap((part) => missingFields("OutputTextContent", part)),
    ]).toEqual([]);
  });
});

describe("embeddings translated from Gemini", () => {
  test("the list, each embedding and the usage have their required fields", async () => {
    const reply = await post("/v1/embeddings", { model: "gemini/text-embedding-004", input: ["one", "two"] });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { data: unknown[]; usage: unknown };
    expect(body.data).toHaveLength(2);
    expect([...missingFields("CreateEmbeddingResponse", body), ...body.data.flatMap((item) => missingFields("Embedding", item)), ...missingFields("CreateEmbeddingResponse.usage", body.usage)]).toEqual([]);
  });
});
