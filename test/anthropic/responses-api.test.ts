import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { loggedRequest } from "../support/logged-request";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { type AnthropicFixture, openAIClientOf, RESPONSES_WEATHER_TOOL, startAnthropicFixture } from "./fixture";

/** OpenAI's Responses API (the Agents SDK's and Codex's) on a provider that has no such API: run as a chat and answered as a response. */

let fixture: AnthropicFixture;
let client: OpenAI;

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  client = openAIClientOf(fixture.gw.url);
});
afterAll(() => fixture.close());

const MODEL = "anthropic/claude-sonnet-4-5";
const lastUpstream = () => fixture.anthropicUpstream.requests.at(-1)!.body;

describe("the OpenAI SDK's responses on an Anthropic model", () => {
  test("instructions and input become a message; the reply is a response with its text and usage", async () => {
    const response = await client.responses.create({ model: MODEL, instructions: "Be brief.", input: "one two three", max_output_tokens: 64 });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("echo: one two three");
    expect(response.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
    expect(lastUpstream()).toMatchObject({ system: "Be brief.", max_tokens: 64, messages: [{ role: "user", content: "one two three" }] });
  });

  test("streamed: the SDK assembles the final response from the events", async () => {
    const stream = client.responses.stream({ model: MODEL, input: "one two three" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("echo: one two three");
    expect(response.output_text).toBe("echo: one two three");
    expect(response.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
    expect(lastUpstream().stream).toBe(true);
  });

  test("a function call, then its output sent back as input items: a tool_result Anthropic accepts", async () => {
    const first = await client.responses.create({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL] });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    expect(call).toMatchObject({ name: "get_weather", arguments: JSON.stringify({ city: "Paris" }), call_id: "toolu_mock_1" });
    expect(lastUpstream().tools).toEqual([{ name: "get_weather", description: "Current weather", input_schema: RESPONSES_WEATHER_TOOL.parameters }]);
    const second = await client.responses.create({
      model: MODEL,
      tools: [RESPONSES_WEATHER_TOOL],
      input: [{ role: "user", content: "what is the weather?" }, call, { type: "function_call_output", call_id: call.call_id, output: "sunny" }],
    });
    expect(second.output_text).toBe("tool said: sunny");
  });

  test("a streamed function call arrives whole in the final response", async () => {
    const response = await client.responses.stream({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL] }).finalResponse();
    expect(response.output).toMatchObject([{ type: "function_call", name: "get_weather", arguments: JSON.stringify({ city: "Paris" }), status: "completed" }]);
  });

  test("with reasoning on, a tool loop hands Anthropic's signed thinking back through encrypted_content", async () => {
    const reasoning = { effort: "low" as const };
    const first = await client.responses.create({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL], reasoning, max_output_tokens: 4096 });
    expect(lastUpstream().thinking).toMatchObject({ type: "enabled" });
    const [thought, call] = first.output as [OpenAI.Responses.ResponseReasoningItem, OpenAI.Responses.ResponseFunctionToolCall];
    expect(thought).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Considering: what is the weather?" }] });
    expect(thought.encrypted_content).toBeString();
    expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
    const second = await client.responses.create({
      model: MODEL,
      tools: [RESPONSES_WEATHER_TOOL],
      reasoning,
      max_output_tokens: 4096,
      input: [{ role: "user", content: "what is the weather?" }, thought, call, { type: "function_call_output", call_id: call.call_id, output: "sunny" }],
    });
    expect(second.output_text).toBe("tool said: sunny");
    const turns = lastUpstream().messages as Array<{ role: string; content: Array<{ type: string; signature?: string }> }>;
    expect(turns[1]!.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(turns[1]!.content[0]!.signature).toBe(`sig-${Buffer.from("what is the weather?").toString("base64")}`);
  });

  test("streamed with reasoning: the summary streams, and the final response carries the sealed thinking", async () => {
    const stream = client.responses.stream({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL], reasoning: { effort: "low" }, max_output_tokens: 4096 });
    let summary = "";
    stream.on("response.reasoning_summary_text.delta", (event) => (summary += event.delta));
    const response = await stream.finalResponse();
    expect(summary).toBe("Considering: what is the weather?");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    expect((response.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content).toBeString();
  });

  test("the request is logged as a response, priced from Anthropic's usage", async () => {
    await client.responses.create({ model: MODEL, input: "log me please" }, { headers: { "x-gw-metadata-case": "bridged" } });
    expect(await loggedRequest(fixture.gw, "bridged")).toMatchObject({ object: "response", provider: "anthropic", input_tokens: 3, output_tokens: 4, stop_reason: "stop" });
  });

  test("what only OpenAI's own Responses API can do is a 400 naming the field", async () => {
    const url = `${fixture.gw.url}/v1/responses`;
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", previous_response_id: "resp_1" }), 400, { param: "previous_response_id" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", tools: [{ type: "code_interpreter", container: { type: "auto" } }] }), 400, { param: "tools[0].type" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: [{ type: "item_reference", id: "msg_1" }] }), 400, { param: "input[0].id" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", conversation: "conv_1" }), 400, { param: "conversation" });
    await expectGatewayError(await postJson(url, { model: MODEL, prompt: { id: "pmpt_1", variables: { city: "Paris" } } }), 400, { param: "prompt" });
  });

  test("a malformed request is a 400 naming the field, before any provider is called", async () => {
    const url = `${fixture.gw.url}/v1/responses`;
    const before = fixture.anthropicUpstream.requests.length;
    await expectGatewayError(await postJson(url, { model: MODEL, input: [null] }), 400, { param: "input[0]" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: [{ type: "function_call", call_id: "c1", name: "f", arguments: { a: 1 } }] }), 400, { param: "input[0].arguments" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", tools: [{ type: "function" }] }), 400, { param: "tools[0].name" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", max_output_tokens: 0 }), 400, { param: "max_output_tokens" });
    await expectGatewayError(await postJson(url, { model: MODEL, input: "hi", text: { format: { type: "yaml" } } }), 400, { param: "text.format.type" });
    expect(fixture.anthropicUpstream.requests.length).toBe(before);
  });
});
