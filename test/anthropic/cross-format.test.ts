import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { loggedRequest } from "../support/logged-request";
import { ANTHROPIC_UPSTREAM_KEY, type AnthropicFixture, OPENAI_UPSTREAM_KEY, startAnthropicFixture } from "./fixture";

let fixture: AnthropicFixture;
let anthropicClient: Anthropic;
let openaiClient: OpenAI;

const weatherTool = { name: "get_weather", description: "Current weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
const openaiWeatherTool = { type: "function" as const, function: { name: "get_weather", description: "Current weather", parameters: weatherTool.input_schema } };

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  anthropicClient = new Anthropic({ baseURL: `${fixture.gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
  openaiClient = new OpenAI({ baseURL: `${fixture.gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(() => fixture.close());

const lastOpenAIUpstream = () => fixture.openaiUpstream.requests.at(-1)!;
const lastAnthropicUpstream = () => fixture.anthropicUpstream.requests.at(-1)!;

describe("the Anthropic SDK to an OpenAI-family model", () => {
  test("a message is sent as a chat completion and answered as an Anthropic message", async () => {
    const message = await anthropicClient.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "hello there" }] });
    expect(message.id).toStartWith("msg_");
    expect(message.content).toMatchObject([{ type: "text", text: "echo: hello there" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 2, output_tokens: 3 });
    const sent = lastOpenAIUpstream();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${OPENAI_UPSTREAM_KEY}`);
    expect(sent.body).toMatchObject({ model: "gpt-4o-mini", max_tokens: 100, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello there" }] });
  });

  test("streamed: Anthropic's event sequence, text deltas, then stop reason and usage", async () => {
    const stream = anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "one two three" }] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const message = await stream.finalMessage();
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(types.filter((type) => type === "content_block_delta").length).toBeGreaterThan(2);
    expect(message.content).toMatchObject([{ type: "text", text: "echo: one two three" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
    expect(lastOpenAIUpstream().body.stream).toBe(true);
  });

  test("streamed tools: the OpenAI tool call becomes a tool_use block built from input_json_delta", async () => {
    const stream = anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, tools: [weatherTool], messages: [{ role: "user", content: "what is the weather?" }] });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toMatchObject([{ type: "tool_use", id: "call_mock_1", name: "get_weather", input: { city: "Paris" } }]);
    expect(lastOpenAIUpstream().body.tools).toEqual([openaiWeatherTool]);
  });

  test("what OpenAI's API does not define stays behind: top_k, thinking, signed thinking, cache markers", async () => {
    const signed = await anthropicClient.messages.create({ model: "claude-sonnet-5-5", max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "first thought" }] });
    const conversation: Anthropic.MessageParam[] = [{ role: "user", content: [{ type: "text", text: "first thought", cache_control: { type: "ephemeral" } }] }, { role: "assistant", content: signed.content }, { role: "user", content: "go on" }];
    const request = { max_tokens: 2048, top_k: 5, thinking: { type: "enabled" as const, budget_tokens: 1024 }, system: [{ type: "text" as const, text: "Be brief.", cache_control: { type: "ephemeral" as const } }], messages: conversation };
    const message = await anthropicClient.messages.create({ ...request, model: "openai/gpt-4o-mini" });
    expect(message.content).toMatchObject([{ type: "text", text: "echo: go on" }]);
    const sent = lastOpenAIUpstream().body;
    expect(Object.keys(sent).sort()).toEqual(["max_tokens", "messages", "model", "stream"]);
    expect(JSON.stringify(sent)).not.toMatch(/cache_control|thinking|signature|reasoning_content/);

    // A reasoning model gets the thinking budget as an effort, and its token limit by the name it takes.
    await anthropicClient.messages.create({ ...request, model: "openai/o4-mini" });
    const toReasoning = lastOpenAIUpstream().body;
    expect(toReasoning).toMatchObject({ model: "o4-mini", reasoning_effort: "low", max_completion_tokens: 2048 });
    expect(toReasoning).not.toContainAnyKeys(["max_tokens", "top_k"]);
  });

  test("tool results and images go upstream in OpenAI's shape", async () => {
    const pixel = Buffer.from("tiny image").toString("base64");
    await anthropicClient.messages.create({
      model: "openai/gpt-4o-mini",
      max_tokens: 100,
      messages: [
        { role: "user", content: "what is the weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "sunny" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: pixel } },
            { type: "text", text: "and this picture?" },
          ],
        },
      ],
    });
    expect(lastOpenAIUpstream().body.messages).toEqual([
      { role: "user", content: "what is the weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } }, { type: "text", text: "and this picture?" }] },
    ]);
  });

  test("an image inside a tool result, which OpenAI's tool messages cannot hold, follows the tool results in a user message", async () => {
    const pixel = Buffer.from("chart image").toString("base64");
    const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: pixel } };
    await anthropicClient.messages.create({
      model: "openai/gpt-4o-mini",
      max_tokens: 100,
      messages: [
        { role: "user", content: "plot both" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "call_1", name: "plot", input: {} },
            { type: "tool_use", id: "call_2", name: "plot", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "first chart:" }, image] },
            { type: "tool_result", tool_use_id: "call_2", content: [image] },
          ],
        },
      ],
    });
    const imagePart = { type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } };
    expect((lastOpenAIUpstream().body.messages as unknown[]).slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "first chart:" }] },
      { role: "tool", tool_call_id: "call_2", content: "(the tool's result is the content of the next message)" },
      { role: "user", content: [imagePart, imagePart] },
    ]);
  });

  test("structured output: output_config.format reaches the OpenAI model as a json_schema response_format", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const message = await anthropicClient.messages.create({
      model: "openai/gpt-4o-mini",
      max_tokens: 100,
      output_config: { format: { type: "json_schema", schema } },
      messages: [{ role: "user", content: "json please" }],
    });
    expect(lastOpenAIUpstream().body.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema, strict: true } });
    const text = message.content[0]!.type === "text" ? message.content[0].text : "";
    expect(JSON.parse(text)).toEqual({ answer: "echo: json please" });
  });

  test("structured output in the beta's own field, output_format, as a raw HTTP client sends it, reaches the model too", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const response = await fetch(`${fixture.gw.url}/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "anthropic-beta": "structured-outputs-2025-11-13" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", max_tokens: 100, output_format: { type: "json_schema", schema }, messages: [{ role: "user", content: "json please" }] }),
    });
    expect(response.status).toBe(200);
    expect(lastOpenAIUpstream().body.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema, strict: true } });
  });

  test("count_tokens for a model whose provider cannot count is counted by the gateway", async () => {
    const before = fixture.openaiUpstream.requests.length;
    const count = (content: string) => anthropicClient.messages.countTokens({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
    const short = await count("hello");
    const long = await count("hello there, this sentence has quite a few more tokens than the first one");
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 10);
    expect(fixture.openaiUpstream.requests.length).toBe(before);
  });

  test("a stream the server ends with an error event midway ends with Anthropic's error event, which the SDK raises", async () => {
    fixture.openaiUpstream.faults.push({ kind: "error-mid-stream", message: "upstream overloaded mid-stream" });
    const stream = anthropicClient.messages.stream(
      { model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] },
      { headers: { "x-gw-metadata-case": "error-mid-stream" } },
    );
    const types: string[] = [];
    const read = (async () => {
      for await (const event of stream) types.push(event.type);
    })();
    const error = await read.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain("upstream overloaded mid-stream");
    // What came before the failure arrived as it was.
    expect(types).toContain("content_block_delta");
    // The log says the request failed, though its status was 200.
    expect(await loggedRequest(fixture.gw, "error-mid-stream")).toMatchObject({ status: "error", status_code: 200, error_type: "provider_stream_error" });
  });

  test("a server whose last chunk has a finish_reason but no delta (as some OpenAI-compatible servers send) still streams whole", async () => {
    const chunk = (choice: Record<string, unknown>) => ({ id: "chatcmpl-x", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, ...choice }] });
    fixture.openaiUpstream.faults.push({ kind: "stream-events", events: [chunk({ delta: { role: "assistant", content: "Hel" } }), chunk({ delta: { content: "lo" } }), chunk({ finish_reason: "stop" })] });
    const message = await anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content).toMatchObject([{ type: "text", text: "Hello" }]);
    expect(message.stop_reason).toBe("end_turn");
  });

  test("an OpenAI refusal comes back as the text of a turn that stops for refusal, whole and streamed", async () => {
    const refusal = "I cannot help with that.";
    const completion = { id: "chatcmpl-r", object: "chat.completion", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: null, refusal }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 } };
    fixture.openaiUpstream.faults.push({ kind: "body", body: JSON.stringify(completion), contentType: "application/json" });
    const message = await anthropicClient.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "something forbidden" }] });
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: refusal })]);
    expect(message.stop_reason).toBe("refusal");

    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: "chatcmpl-r", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }] });
    fixture.openaiUpstream.faults.push({ kind: "stream-events", events: [chunk({ role: "assistant", refusal: "I cannot " }), chunk({ refusal: "help with that." }), chunk({}, "stop")] });
    const streamed = await anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "something forbidden" }] }).finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ type: "text", text: refusal })]);
    expect(streamed.stop_reason).toBe("refusal");
  });

  test("streamed tool calls without an index (as Gemini's OpenAI-compatible endpoint sends them) become one tool_use block each", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }] });
    const call = (id: string, city: string) => ({ id, type: "function", function: { name: "get_weather", arguments: JSON.stringify({ city }) } });
    fixture.openaiUpstream.faults.push({ kind: "stream-events", events: [chunk({ role: "assistant", tool_calls: [call("call_1", "Paris")] }), chunk({ tool_calls: [call("call_2", "Rome")] }), chunk({}, "tool_calls")] });
    const message = await anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, tools: [weatherTool], messages: [{ role: "user", content: "weather in Paris and Rome?" }] }).finalMessage();
    expect(message.content).toMatchObject([
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Rome" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
  });

  test("a stream cut off midway ends with an error event the SDK raises, not a reset connection", async () => {
    fixture.openaiUpstream.faults.push({ kind: "drop-mid-stream" });
    const stream = anthropicClient.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "one two three four" }] });
    const error = await stream.finalMessage().then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).not.toBeInstanceOf(Anthropic.APIConnectionError);
    expect((error as Error).message).toContain("broke off");
  });

  test("a 200 whose body is not a chat completion (a proxy's HTML page) is a 502 provider_bad_response, logged as an error", async () => {
    fixture.openaiUpstream.faults.push({ kind: "body", body: "<html>bad gateway</html>", contentType: "text/html" });
    const response = await fetch(`${fixture.gw.url}/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-gw-metadata-case": "html-reply" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "hello" }] }),
    });
    await expectGatewayError(response, 502, { errorType: "provider_bad_response" });
    expect(await loggedRequest(fixture.gw, "html-reply")).toMatchObject({ status: "error", status_code: 502 });
  });
});

describe("the OpenAI SDK to an Anthropic model", () => {
  test("responses.inputTokens.count is counted by the gateway, since Anthropic has no such endpoint", async () => {
    const before = fixture.anthropicUpstream.requests.length;
    const count = (input: string) => openaiClient.responses.inputTokens.count({ model: "anthropic/claude-sonnet-5-5", input });
    const short = await count("hello");
    const long = await count("hello there, this sentence has quite a few more tokens than the first one");
    expect(short).toMatchObject({ object: "response.input_tokens" });
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 10);
    expect(fixture.anthropicUpstream.requests.length).toBe(before);
  });

  test("a chat completion is sent as a Messages request with Anthropic's headers and a default max_tokens", async () => {
    const completion = await openaiClient.chat.completions.create({
      model: "anthropic/claude-sonnet-5-5",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      stop: "never-said",
    });
    expect(completion.choices[0]!.message.content).toBe("echo: hi");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
    const sent = lastAnthropicUpstream();
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers.get("x-api-key")).toBe(ANTHROPIC_UPSTREAM_KEY);
    expect(sent.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(sent.body).toEqual({ model: "claude-sonnet-5-5", max_tokens: 4096, system: "Be brief.", messages: [{ role: "user", content: "hi" }], stop_sequences: ["never-said"], stream: false });
  });

  test("Anthropic's error event midway (overloaded) ends the stream with an error chunk, which the SDK raises", async () => {
    fixture.anthropicUpstream.faults.push({ kind: "error-mid-stream", message: "Overloaded" });
    const stream = await openaiClient.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", stream: true, messages: [{ role: "user", content: "one two three four" }] });
    let text = "";
    const read = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })();
    const error = await read.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("overloaded_error: Overloaded");
    expect(text.length).toBeGreaterThan(0);
  });

  test("cache_control on content parts reaches Anthropic, and cache reads and writes come back in prompt_tokens_details", async () => {
    const request = {
      model: "anthropic/claude-sonnet-5-5",
      messages: [
        { role: "system" as const, content: [{ type: "text" as const, text: "a long cached system prompt", cache_control: { type: "ephemeral" } }] },
        { role: "user" as const, content: "question" },
      ],
    };
    const first = await openaiClient.chat.completions.create(request);
    expect(lastAnthropicUpstream().body.system).toEqual([{ type: "text", text: "a long cached system prompt", cache_control: { type: "ephemeral" } }]);
    const second = await openaiClient.chat.completions.create(request);
    const written = (first.usage!.prompt_tokens_details as { cache_write_tokens?: number }).cache_write_tokens;
    expect(written).toBe(5);
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(5);
    expect(second.usage!.prompt_tokens).toBe(1 + 5);
  });

  test("streamed with reasoning: thinking arrives as reasoning_content, its signature whole in thinking_blocks, then text and usage", async () => {
    const stream = await openaiClient.chat.completions.create({
      model: "anthropic/claude-sonnet-5-5",
      messages: [{ role: "user", content: "ponder this" }],
      reasoning_effort: "low",
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = "";
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    const thinkingBlocks: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; thinking_blocks?: unknown[] }) | undefined;
      reasoning += delta?.reasoning_content ?? "";
      text += delta?.content ?? "";
      thinkingBlocks.push(...(delta?.thinking_blocks ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(lastAnthropicUpstream().body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(reasoning).toBe("Considering: ponder this");
    expect(thinkingBlocks).toEqual([{ type: "thinking", thinking: "Considering: ponder this", signature: `sig-${Buffer.from("ponder this").toString("base64")}` }]);
    expect(text).toBe("echo: ponder this");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3 });
  });

  test("streamed tools: tool_use becomes OpenAI tool-call deltas; the result goes back as a tool_result Anthropic accepts", async () => {
    const stream = await openaiClient.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", messages: [{ role: "user", content: "what is the weather?" }], tools: [openaiWeatherTool], stream: true });
    let id = "";
    let name = "";
    let args = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      id ||= call?.id ?? "";
      name ||= call?.function?.name ?? "";
      args += call?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect({ id, name, input: JSON.parse(args), finish }).toEqual({ id: "toolu_mock_1", name: "get_weather", input: { city: "Paris" }, finish: "tool_calls" });
    expect(lastAnthropicUpstream().body.tools).toEqual([weatherTool]);

    const answer = await openaiClient.chat.completions.create({
      model: "anthropic/claude-sonnet-5-5",
      tools: [openaiWeatherTool],
      messages: [
        { role: "user", content: "what is the weather?" },
        { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] },
        { role: "tool", tool_call_id: id, content: "sunny, 21C" },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe("tool said: sunny, 21C");
  });

  test("sampling as Anthropic takes it: temperature wins over top_p; with thinking, only what thinking allows", async () => {
    const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
      openaiClient.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", messages: [{ role: "user", content: "what is the weather?" }], ...extra });
    expect((await ask({ temperature: 0.7, top_p: 1 })).choices[0]!.message.content).toBe("echo: what is the weather?");
    expect(lastAnthropicUpstream().body).toMatchObject({ temperature: 0.7 });
    expect(lastAnthropicUpstream().body).not.toHaveProperty("top_p");

    await ask({ reasoning_effort: "low", temperature: 0.3, top_p: 0.5 });
    expect(lastAnthropicUpstream().body).toMatchObject({ thinking: { type: "enabled" } });
    expect(lastAnthropicUpstream().body).not.toContainAnyKeys(["temperature", "top_p"]);

    // A forced tool and thinking do not go together: the tool is what the client asked for.
    const forced = await ask({ reasoning_effort: "low", tools: [openaiWeatherTool], tool_choice: "required" });
    expect(forced.choices[0]!.finish_reason).toBe("tool_calls");
    expect(lastAnthropicUpstream().body).toMatchObject({ tool_choice: { type: "any" } });
    expect(lastAnthropicUpstream().body).not.toHaveProperty("thinking");
  });

  test("with reasoning on, a tool turn the client kept without thinking_blocks is answered without thinking, not refused", async () => {
    const ask = (assistant: OpenAI.ChatCompletionAssistantMessageParam) =>
      openaiClient.chat.completions.create({
        model: "anthropic/claude-sonnet-5-5",
        reasoning_effort: "low",
        tools: [openaiWeatherTool],
        messages: [{ role: "user", content: "what is the weather?" }, assistant, { role: "tool", tool_call_id: "toolu_mock_1", content: "sunny" }],
      });
    const first = await openaiClient.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", reasoning_effort: "low", tools: [openaiWeatherTool], messages: [{ role: "user", content: "what is the weather?" }] });
    const kept = first.choices[0]!.message as OpenAI.ChatCompletionAssistantMessageParam & { thinking_blocks?: unknown[] };
    expect(kept.thinking_blocks).toHaveLength(1);

    // A client that builds the turn itself, as most do, drops the gateway's thinking_blocks.
    const rebuilt = await ask({ role: "assistant", content: null, tool_calls: kept.tool_calls });
    expect(rebuilt.choices[0]!.message.content).toBe("tool said: sunny");
    expect(lastAnthropicUpstream().body.thinking).toBeUndefined();

    // One that sends the message back as it came keeps thinking on.
    const whole = await ask(kept);
    expect(whole.choices[0]!.message.content).toBe("tool said: sunny");
    expect(lastAnthropicUpstream().body.thinking).toMatchObject({ type: "enabled" });
  });

  test("images, as data URLs or links, reach Anthropic as base64 and url image sources", async () => {
    const pixel = Buffer.from("tiny image").toString("base64");
    await openaiClient.chat.completions.create({
      model: "anthropic/claude-sonnet-5-5",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "compare these" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    });
    expect(lastAnthropicUpstream().body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "compare these" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: pixel } },
          { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
        ],
      },
    ]);
  });

  test("a json_schema response_format reaches Anthropic as output_config.format", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } } };
    await openaiClient.chat.completions.create({
      model: "anthropic/claude-sonnet-5-5",
      messages: [{ role: "user", content: "structured" }],
      response_format: { type: "json_schema", json_schema: { name: "reply", schema } },
    });
    expect(lastAnthropicUpstream().body.output_config).toEqual({ format: { type: "json_schema", schema: { ...schema, additionalProperties: false } } });
  });

  test("citations come back as annotations over the text", async () => {
    const completion = await openaiClient.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", messages: [{ role: "user", content: "cite your source" }] });
    const message = completion.choices[0]!.message;
    expect(message.content).toBe("echo: cite your source");
    expect(message.annotations).toEqual([
      {
        type: "url_citation",
        url_citation: { url: "https://example.com/source", title: "Source", start_index: 0, end_index: message.content!.length },
        citation: { type: "web_search_result_location", url: "https://example.com/source", title: "Source", cited_text: "the source text", encrypted_index: "enc-1" },
      } as unknown as OpenAI.Chat.ChatCompletionMessage.Annotation,
    ]);
  });
});
