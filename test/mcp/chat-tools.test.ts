import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

const AGENT_MAX_DEPTH = 3;

let gw: TestGateway;
let model: ScriptedModel;
let weather: McpHttpServer;
let maths: McpHttpServer;
let openai: OpenAI;
let anthropicUpstream: MockAnthropic;

type Tool = { type: string; function: { name: string; parameters?: Record<string, unknown> } };
const toolNames = (request: Record<string, unknown> | undefined) => ((request?.tools ?? []) as Tool[]).map((tool) => tool.function.name).sort();

beforeAll(async () => {
  model = startScriptedModel();
  anthropicUpstream = startMockAnthropic("sk-ant-upstream-key-0001");
  weather = startMcpHttpServer();
  maths = startMcpHttpServer();
  gw = await startMcpGateway({
    mcp: { agent_max_depth: AGENT_MAX_DEPTH },
    providers: {
      openai: { keys: [{ id: "k1", value: "sk-upstream-model-key-0001" }], network_config: { base_url: model.baseUrl } },
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream-key-0001" }], network_config: { base_url: anthropicUpstream.baseUrl } },
    },
  });
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["get_weather", "fail"], tools_to_auto_execute: ["get_weather", "fail"] });
  await createMcpClient(gw, { name: "maths", connection_type: "http", connection_string: maths.url, tools_to_execute: ["add"] });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  model.stop();
  anthropicUpstream.stop();
  await weather.stop();
  await maths.stop();
});

const ask = (content: string, options: OpenAI.RequestOptions = {}, tools?: OpenAI.ChatCompletionTool[]) =>
  openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...(tools ? { tools } : {}) }, options);

describe("chat requests get the allowed MCP tools", () => {
  test("the MCP tools are added next to the client's own, with their schemas", async () => {
    const own: OpenAI.ChatCompletionTool = { type: "function", function: { name: "lookup_order", parameters: { type: "object", properties: {} } } };
    const completion = await ask("hello", {}, [own]);
    expect(completion.choices[0]!.message.content).toBe("echo: hello");
    const sent = model.requests.at(-1)!;
    expect(toolNames(sent)).toEqual(["lookup_order", "maths-add", "weather-fail", "weather-get_weather"]);
    const getWeather = (sent.tools as Tool[]).find((tool) => tool.function.name === "weather-get_weather")!;
    expect(getWeather.function.parameters).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
  });

  test("x-gw-mcp-include-clients and x-gw-mcp-include-tools narrow the injected tools", async () => {
    await ask("hello", { headers: { "x-gw-mcp-include-clients": "maths" } });
    expect(toolNames(model.requests.at(-1))).toEqual(["maths-add"]);
    await ask("hello", { headers: { "x-gw-mcp-include-tools": "weather-get_weather,maths-*" } });
    expect(toolNames(model.requests.at(-1))).toEqual(["maths-add", "weather-get_weather"]);
    await ask("hello", { headers: { "x-gw-mcp-include-tools": "" } });
    expect(model.requests.at(-1)!.tools).toBeUndefined();
  });

  test("the lists may have spaces around their commas, as headers usually do", async () => {
    await ask("hello", { headers: { "x-gw-mcp-include-clients": "weather, maths" } });
    expect(toolNames(model.requests.at(-1))).toEqual(["maths-add", "weather-fail", "weather-get_weather"]);
    await ask("hello", { headers: { "x-gw-mcp-include-tools": " weather-get_weather , maths-* " } });
    expect(toolNames(model.requests.at(-1))).toEqual(["maths-add", "weather-get_weather"]);
  });

  test("a virtual key's mcp_configs decide which tools its requests get", async () => {
    const key = await createVirtualKey(gw, "maths-only", { mcp_configs: [{ mcp_client_name: "maths", tools_to_execute: ["*"] }] });
    await ask("hello", { headers: { "x-gw-vk": key.value } });
    expect(toolNames(model.requests.at(-1))).toEqual(["maths-add"]);
  });

  for (const [label, mathsConfig] of [
    ["without tools_to_execute", { mcp_client_name: "maths" }],
    ["with an empty tools_to_execute", { mcp_client_name: "maths", tools_to_execute: [] }],
  ] as const) {
    test(`an mcp_configs entry ${label} injects none of that client's tools`, async () => {
      const alongside = await createVirtualKey(gw, `no-maths ${label}`, { mcp_configs: [mathsConfig, { mcp_client_name: "weather", tools_to_execute: ["get_weather"] }] });
      await ask("hello", { headers: { "x-gw-vk": alongside.value } });
      expect(toolNames(model.requests.at(-1))).toEqual(["weather-get_weather"]);
      const alone = await createVirtualKey(gw, `nothing ${label}`, { mcp_configs: [mathsConfig] });
      await ask("hello", { headers: { "x-gw-vk": alone.value } });
      expect(model.requests.at(-1)!.tools).toBeUndefined();
    });
  }
});

describe("chat requests in Anthropic's format", () => {
  test("get the MCP tools in Anthropic's tool shape", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
    await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }, { headers: { "x-gw-mcp-include-clients": "weather" } });
    const tools = anthropicUpstream.requests.at(-1)!.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>;
    expect(tools.map((tool) => tool.name).sort()).toEqual(["weather-fail", "weather-get_weather"]);
    expect(tools.find((tool) => tool.name === "weather-get_weather")!.input_schema).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
  });
});

describe("agent mode", () => {
  test("auto-executable tool calls are run and their results fed back; the client gets the final answer", async () => {
    const before = model.requests.length;
    const completion = await ask('call weather-get_weather {"city":"Paris"}');
    expect(completion.choices[0]!.message.content).toBe("results: Sunny and 21C in Paris");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(weather.calls.at(-1)).toEqual({ name: "get_weather", arguments: { city: "Paris" } });
    const [first, followUp] = model.requests.slice(before);
    expect(model.requests.length - before).toBe(2);
    expect(followUp!.messages).toEqual([
      { role: "user", content: 'call weather-get_weather {"city":"Paris"}' },
      { role: "assistant", content: null, tool_calls: [{ id: "call_0_0", type: "function", function: { name: "weather-get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_0_0", content: "Sunny and 21C in Paris" },
    ]);
    expect(toolNames(first)).toEqual(toolNames(followUp));
  });

  test("several calls in one reply run together; a tool's failure is fed back as its result", async () => {
    const completion = await ask('call weather-get_weather {"city":"Rome"}; call weather-fail');
    expect(completion.choices[0]!.message.content).toBe("results: Sunny and 21C in Rome | the tool failed on purpose");
  });

  test("the tool call is logged with the id of the chat request that asked for it; the follow-up is that request's child", async () => {
    await ask('call weather-get_weather {"city":"Madrid"}');
    const { logs } = (await (await gw.admin("/api/mcp-logs?content_search=madrid")).json()) as { logs: Array<{ llm_request_id: string; source: string }> };
    expect(logs).toHaveLength(1);
    expect(logs[0]!.source).toBe("agent");
    const requestId = logs[0]!.llm_request_id;
    const byRequest = (await (await gw.admin(`/api/mcp-logs?llm_request_ids=${requestId}`)).json()) as { total: number };
    expect(byRequest.total).toBe(1);
    // Request logs are written in batches: read until the chat request and its follow-up are there.
    for (;;) {
      const children = (await (await gw.admin(`/api/logs?parent_request_id=${requestId}`)).json()) as { logs: Array<{ parent_request_id: string }> };
      const parent = await gw.admin(`/api/logs/${requestId}`);
      if (children.logs.length === 1 && parent.status === 200) break;
      await Bun.sleep(20);
    }
  });

  test("a tool call that is not auto-executable goes back to the client untouched", async () => {
    const before = maths.calls.length;
    const completion = await ask('call maths-add {"a":1,"b":2}');
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: "maths-add", arguments: '{"a":1,"b":2}' } });
    expect(maths.calls.length).toBe(before);
  });

  test(`stops after the configured depth (${AGENT_MAX_DEPTH} rounds) and answers the last reply`, async () => {
    const before = { model: model.requests.length, weather: weather.calls.length };
    const completion = await ask('always call weather-get_weather {"city":"Oslo"}');
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(weather.calls.length - before.weather).toBe(AGENT_MAX_DEPTH);
    expect(model.requests.length - before.model).toBe(AGENT_MAX_DEPTH + 1);
  });

  const streamed = async (content: string, extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {}) => {
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of await openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], stream: true, ...extra })) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    const toolCalls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    return { chunks, text, toolCalls, finish: chunks.findLast((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]!.finish_reason };
  };

  test("streamed: the tool round runs in between, and the client's stream goes on with the answer", async () => {
    const before = { model: model.requests.length, weather: weather.calls.length };
    const { text, toolCalls, finish } = await streamed('call weather-get_weather {"city":"Lisbon"}');
    expect(text).toBe("results: Sunny and 21C in Lisbon");
    expect(toolCalls).toEqual([]);
    expect(finish).toBe("stop");
    expect(weather.calls.length - before.weather).toBe(1);
    const rounds = model.requests.slice(before.model);
    expect(rounds.map((request) => request.stream)).toEqual([true, true]);
    expect((rounds[1]!.messages as Array<{ role: string }>).map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  test("streamed: text a round wrote before its tool calls stays, and the next round's starts a new paragraph", async () => {
    const { text, finish } = await streamed('say Let me look that up.; call weather-get_weather {"city":"Faro"}');
    expect(text).toBe("Let me look that up.\n\nresults: Sunny and 21C in Faro");
    expect(finish).toBe("stop");
  });

  test("streamed: a call the gateway may not run reaches the client whole", async () => {
    const before = maths.calls.length;
    const { toolCalls, finish } = await streamed('call maths-add {"a":1,"b":2}');
    expect(finish).toBe("tool_calls");
    expect(toolCalls.map((call) => call.function?.name).filter(Boolean)).toEqual(["maths-add"]);
    expect(toolCalls.map((call) => call.function?.arguments ?? "").join("")).toBe('{"a":1,"b":2}');
    expect(maths.calls.length).toBe(before);
  });

  test("streamed with usage asked: one usage chunk, the rounds added up", async () => {
    const { chunks } = await streamed('call weather-get_weather {"city":"Porto"}', { stream_options: { include_usage: true } });
    const usageChunks = chunks.filter((chunk) => chunk.usage);
    expect(usageChunks).toHaveLength(1);
    expect(usageChunks[0]!.choices).toEqual([]);
    expect(usageChunks[0]!.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
  });

  test("streamed on a thinking Anthropic model: the next round gets the signed thinking back and thinks too", async () => {
    const stream = await openai.chat.completions.create(
      { model: "anthropic/claude-sonnet-4-5", reasoning_effort: "low", max_tokens: 4096, messages: [{ role: "user", content: "what is the weather?" }], stream: true },
      { headers: { "x-gw-mcp-include-tools": "weather-get_weather" } },
    );
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("tool said: Sunny and 21C in Paris");
    const followUp = anthropicUpstream.requests.at(-1)!.body;
    expect(followUp.thinking).toMatchObject({ type: "enabled" });
    expect((followUp.messages as Array<{ content: Array<{ type: string }> }>)[1]!.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
  });

  test(`streamed: after ${AGENT_MAX_DEPTH} rounds the last round's calls go to the client`, async () => {
    const before = weather.calls.length;
    const { toolCalls, finish } = await streamed('always call weather-get_weather {"city":"Oslo"}');
    expect(weather.calls.length - before).toBe(AGENT_MAX_DEPTH);
    expect(finish).toBe("tool_calls");
    expect(toolCalls.map((call) => call.function?.name).filter(Boolean)).toEqual(["weather-get_weather"]);
  });
});
