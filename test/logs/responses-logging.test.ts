import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** The Responses API, streamed or not, is logged with its usage, how it ended and the functions it called. */

let upstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const weather: OpenAI.Responses.FunctionTool = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false };
const tagged = (name: string) => ({ headers: { "x-gw-metadata-case": name } });

const loggedRow = (name: string) => loggedRequest(gw, name);

async function streamed(request: OpenAI.Responses.ResponseCreateParamsStreaming, name: string): Promise<OpenAI.Responses.Response> {
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of await client.responses.create(request, tagged(name))) {
    if (event.type === "response.completed") completed = event.response;
  }
  return completed!;
}

test("a streamed response: its usage, its text and how it ended", async () => {
  const response = await streamed({ model: "openai/gpt-4o-mini", input: "one two three", stream: true }, "streamed-text");
  expect(await loggedRow("streamed-text")).toMatchObject({
    object: "response",
    stream: true,
    input_tokens: response.usage!.input_tokens,
    output_tokens: response.usage!.output_tokens,
    total_tokens: response.usage!.total_tokens,
    stop_reason: "stop",
    response_content: "echo: one two three",
  });
});

test("a streamed function call: its name is logged and the reply ended in a tool call", async () => {
  const response = await streamed({ model: "openai/gpt-4o-mini", input: "what is the weather?", tools: [weather], stream: true }, "streamed-call");
  expect(response.output[0]).toMatchObject({ type: "function_call", name: "get_weather" });
  expect(await loggedRow("streamed-call")).toMatchObject({ tool_call_names: ["get_weather"], stop_reason: "tool_calls", output_tokens: 10 });
});

test("a response not streamed: the same reading", async () => {
  await client.responses.create({ model: "openai/gpt-4o-mini", input: "what is the weather?", tools: [weather] }, tagged("whole-call"));
  expect(await loggedRow("whole-call")).toMatchObject({ tool_call_names: ["get_weather"], stop_reason: "tool_calls", input_tokens: 4, output_tokens: 10 });
});
