import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * An OpenAI stream reports usage only when the request sets `stream_options.include_usage`, which
 * OpenAI's SDK does not by default. The gateway asks on every stream, so logs and budgets get the
 * provider's own count, and keeps the extra chunk from clients that did not ask for it.
 */

/** An OpenAI-compatible server whose stream arrives cut at awkward places, with CRLF line ends. */
function startSplitUpstream() {
  const events = [
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "split-model", choices: [{ index: 0, delta: { role: "assistant", content: "a [] b" }, finish_reason: null }], usage: null },
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "split-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: null },
    { id: "c1", object: "chat.completion.chunk", created: 1, model: "split-model", choices: [], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } },
  ];
  const wire = `${events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join("")}data: [DONE]\r\n\r\n`;
  const usageLine = `data: ${JSON.stringify(events[2])}\r\n`;
  const usageAt = wire.indexOf(usageLine);
  // Cuts inside the first event, inside the usage event's data line, and between its CR and LF.
  const cuts = [17, usageAt + 20, usageAt + usageLine.length - 1, wire.length];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            let from = 0;
            for (const cut of cuts) {
              controller.enqueue(new TextEncoder().encode(wire.slice(from, cut)));
              from = cut;
              await Bun.sleep(2);
            }
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, wire, withoutUsage: wire.replace(usageLine, ""), stop: () => server.stop(true) };
}

let openaiUpstream: MockOpenAI;
let strictUpstream: MockOpenAI;
let unknownServer: MockOpenAI;
let anthropicUpstream: MockAnthropic;
let splitUpstream: ReturnType<typeof startSplitUpstream>;
let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  // Mistral's API and Azure's before 2024-09-01 refuse `stream_options`; Mistral reports usage unasked.
  strictUpstream = startMockOpenAI();
  strictUpstream.refusedFields = ["stream_options"];
  strictUpstream.streamUsage = "in-last-chunk";
  strictUpstream.toolCallIds = /^[A-Za-z0-9]{9}$/;
  // A server the gateway knows nothing about that refuses the field too.
  unknownServer = startMockOpenAI();
  unknownServer.refusedFields = ["stream_options"];
  unknownServer.streamUsage = "never";
  anthropicUpstream = startMockAnthropic("sk-ant-upstream");
  splitUpstream = startSplitUpstream();
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "oai", value: "sk-openai-upstream" }], network_config: { base_url: openaiUpstream.baseUrl } },
      anthropic: { keys: [{ id: "ant", value: "sk-ant-upstream" }], network_config: { base_url: anthropicUpstream.baseUrl } },
      mistral: { keys: [{ id: "mistral", value: "sk-mistral" }], network_config: { base_url: strictUpstream.baseUrl } },
      azure: {
        keys: [
          { id: "az-old", value: "sk-azure", weight: 0, azure_key_config: { endpoint: strictUpstream.url, api_version: "2024-06-01" } },
          { id: "az-new", value: "sk-azure", weight: 0, azure_key_config: { endpoint: openaiUpstream.url, api_version: "2025-01-01-preview" } },
        ],
      },
      localserver: { keys: [{ id: "local", value: "sk-local" }], network_config: { base_url: unknownServer.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
      split: { keys: [{ id: "split", value: "sk-split" }], network_config: { base_url: splitUpstream.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  strictUpstream.stop();
  unknownServer.stop();
  anthropicUpstream.stop();
  splitUpstream.stop();
});

const tagged = (name: string) => ({ headers: { "x-gw-metadata-case": name } });

async function collect(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, text: chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join(""), usage: chunks.findLast((chunk) => chunk.usage)?.usage };
}

const loggedRow = (name: string) => loggedRequest(gw, name);

describe("an OpenAI stream the client did not ask usage of", () => {
  test("is priced from the provider's count, and the client gets no usage chunk", async () => {
    const { chunks, text } = await collect(await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], stream: true }, tagged("unasked")));
    expect(text).toBe("echo: one two three");
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(openaiUpstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(await loggedRow("unasked")).toMatchObject({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
  });

  test("a client that asked gets the usage chunk as the provider sent it", async () => {
    const { chunks, usage } = await collect(
      await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], stream: true, stream_options: { include_usage: true } }, tagged("asked")),
    );
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(await loggedRow("asked")).toMatchObject({ total_tokens: 7 });
  });

  test("other stream options the client set go upstream beside include_usage", async () => {
    await collect(await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: false, include_obfuscation: false } }));
    expect(openaiUpstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true, include_obfuscation: false });
  });

  test("every other byte arrives as the provider sent it, however the stream was cut", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-metadata-case": "split" },
      body: JSON.stringify({ model: "split/split-model", messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    expect(await response.text()).toBe(splitUpstream.withoutUsage);
    expect(await loggedRow("split")).toMatchObject({ input_tokens: 11, output_tokens: 3, total_tokens: 14 });
  });

  test("the usage chunk stays out when no plugin observes the stream", async () => {
    const plugins = ["logging", "telemetry", "governance", "mcp"];
    for (const name of plugins) expect((await gw.admin(`/api/plugins/${name}`, { method: "PUT", json: { enabled: false } })).status).toBe(200);
    try {
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "split/split-model", messages: [{ role: "user", content: "hi" }], stream: true }),
      });
      expect(await response.text()).toBe(splitUpstream.withoutUsage);
    } finally {
      for (const name of plugins) await gw.admin(`/api/plugins/${name}`, { method: "PUT", json: { enabled: true } });
    }
  });

  test("a streamed text completion (an editor's autocomplete) is priced the same way", async () => {
    const chunks: OpenAI.Completion[] = [];
    for await (const chunk of await client.completions.create({ model: "openai/gpt-4o-mini", prompt: "def add(a, b):", stream: true }, tagged("completion"))) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]!.text).join("")).toBe("echo: def add(a, b):");
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(openaiUpstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(await loggedRow("completion")).toMatchObject({ object: "text_completion", input_tokens: 1, output_tokens: 4, stop_reason: "stop", response_content: "echo: def add(a, b):" });
  });

  test("translated from Anthropic's stream: the usage chunk only when asked", async () => {
    const unasked = await collect(await client.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", messages: [{ role: "user", content: "one two three" }], stream: true }));
    expect(unasked.text).toBe("echo: one two three");
    expect(unasked.chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    const asked = await collect(await client.chat.completions.create({ model: "anthropic/claude-sonnet-5-5", messages: [{ role: "user", content: "one two three" }], stream: true, stream_options: { include_usage: true } }));
    expect(asked.chunks.at(-1)!.choices).toEqual([]);
    expect(asked.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
  });
});

describe("what Mistral and older Azure versions refuse", () => {
  const ask = (model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    client.chat.completions.create({ model, messages: [{ role: "user", content: "one two three" }], stream: true, ...extra }, { headers });

  test("Mistral gets none, even from a client that set it, and its own usage is logged", async () => {
    const unasked = await collect(await ask("mistral/mistral-small", {}, { "x-gw-metadata-case": "mistral" }));
    expect(unasked.text).toBe("echo: one two three");
    expect(strictUpstream.requests.at(-1)!.body).not.toHaveProperty("stream_options");
    expect(await loggedRow("mistral")).toMatchObject({ input_tokens: 3, output_tokens: 4 });
    const asked = await collect(await ask("mistral/mistral-small", { stream_options: { include_usage: true } }));
    expect(asked.usage).toMatchObject({ total_tokens: 7 });
  });

  test("Mistral gets tool call ids it takes, the same on a call and on its result", async () => {
    const call = { id: "call_Xy12_from_openai", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
    const completion = await client.chat.completions.create({
      model: "mistral/mistral-small",
      messages: [{ role: "user", content: "weather?" }, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: call.id, content: "sunny" }, { role: "user", content: "thanks" }],
    });
    expect(completion.choices[0]!.message.content).toBe("echo: thanks");
    const [, assistant, result] = strictUpstream.requests.at(-1)!.body.messages as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    expect(assistant!.tool_calls![0]!.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(result!.tool_call_id).toBe(assistant!.tool_calls![0]!.id);
  });

  test("Mistral has no Responses API: a Responses call reaches it as a chat, streamed or not", async () => {
    const response = await client.responses.create({ model: "mistral/mistral-small", input: "one two three" });
    expect(response.output_text).toBe("echo: one two three");
    expect(strictUpstream.requests.at(-1)!.path).toBe("/v1/chat/completions");
    const streamed = await client.responses.stream({ model: "mistral/mistral-small", input: "one two three" }).finalResponse();
    expect(streamed.output_text).toBe("echo: one two three");
    expect(streamed.usage).toMatchObject({ input_tokens: 3, output_tokens: 4 });
  });

  test("a Responses stream answered as a chat keeps parallel tool calls whole when their argument deltas interleave", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: "chatcmpl-p", object: "chat.completion.chunk", created: 1, model: "mistral-small", choices: [{ index: 0, delta, finish_reason: finish }] });
    const opened = (index: number, id: string, name: string, args: string) => ({ index, id, type: "function", function: { name, arguments: args } });
    const more = (index: number, args: string) => ({ index, function: { arguments: args } });
    strictUpstream.faults.push({
      kind: "stream-events",
      events: [
        chunk({ role: "assistant", tool_calls: [opened(0, "c1", "get_weather", '{"city":')] }),
        chunk({ tool_calls: [opened(1, "c2", "get_time", '{"zone":')] }),
        chunk({ tool_calls: [more(0, '"Paris"}')] }),
        chunk({ tool_calls: [more(1, '"CET"}')] }),
        chunk({}, "tool_calls"),
      ],
    });
    const tools = ["get_weather", "get_time"].map((name) => ({ type: "function" as const, name, parameters: { type: "object", properties: {} }, strict: false }));
    const response = await client.responses.stream({ model: "mistral/mistral-small", input: "weather and time", tools }).finalResponse();
    expect(response.output).toMatchObject([
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "c2", name: "get_time", arguments: '{"zone":"CET"}' },
    ]);
  });

  test("a Responses stream answered as a chat that the provider fails midway ends with an error event the SDK raises", async () => {
    strictUpstream.faults.push({ kind: "error-mid-stream", message: "mistral overloaded midway" });
    const stream = await client.responses.create({ model: "mistral/mistral-small", input: "one two three four five", stream: true });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("mistral overloaded midway");
    expect(types).toContain("response.output_text.delta");
  });

  test("a server nobody told the gateway about gets the stream again without it, and is not asked again", async () => {
    const before = unknownServer.requests.length;
    const first = await collect(await client.chat.completions.create({ model: "localserver/local-model", messages: [{ role: "user", content: "one two three" }], stream: true }));
    expect(first.text).toBe("echo: one two three");
    const second = await collect(await client.chat.completions.create({ model: "localserver/local-model", messages: [{ role: "user", content: "four five" }], stream: true }));
    expect(second.text).toBe("echo: four five");
    const sent = unknownServer.requests.slice(before).map((request) => "stream_options" in request.body);
    expect(sent).toEqual([true, false, false]);
  });

  test("Azure gets it from api-version 2024-09-01 on, and not before", async () => {
    expect((await collect(await ask("azure/gpt-4o", {}, { "x-gw-api-key-id": "az-old" }))).text).toBe("echo: one two three");
    expect(strictUpstream.requests.at(-1)!.path).toContain("api-version=2024-06-01");
    expect(strictUpstream.requests.at(-1)!.body).not.toHaveProperty("stream_options");
    await collect(await ask("azure/gpt-4o", {}, { "x-gw-api-key-id": "az-new" }));
    expect(openaiUpstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
  });

  test("an Anthropic client's stream reaches Mistral too", async () => {
    const response = await fetch(`${gw.url}/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "unused", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "mistral/mistral-small", max_tokens: 50, stream: true, messages: [{ role: "user", content: "one two three" }] }),
    });
    expect(response.status).toBe(200);
    const events = await response.text();
    expect(events).toContain('"text":"three"');
    expect(events).toContain('"output_tokens":4');
  });
});
