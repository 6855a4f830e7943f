import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * The tools of a Responses API request that only OpenAI's own API knows, on providers without
 * it: a `namespace` (Codex's `multi_agent_v1`) goes as its function tools and its calls come
 * back under the namespace; `web_search` becomes Anthropic's own search, or is left out where
 * the provider has none, said in `x-gw-dropped-tools`.
 */

const ANTHROPIC_KEY = "sk-ant-upstream-tools";
const NAMESPACE: OpenAI.Responses.Tool = {
  type: "namespace",
  name: "multi_agent_v1",
  description: "Tools for sub-agents.",
  tools: [
    { type: "function", name: "spawn_agent", description: "Start an agent.", parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }, strict: false },
    { type: "function", name: "wait_agent", description: "Wait for one.", parameters: { type: "object", properties: {} }, strict: false },
  ],
} as unknown as OpenAI.Responses.Tool;

let gw: TestGateway;
let anthropic: MockAnthropic;
let chatOnly: MockOpenAI;
let gemini: MockGemini;
let client: OpenAI;

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_KEY);
  chatOnly = startMockOpenAI();
  chatOnly.missingRoutes = ["/responses"];
  gemini = startMockGemini();
  gw = await startGateway({
    providers: {
      anthropic: { keys: [{ id: "ant", value: ANTHROPIC_KEY }], network_config: { base_url: anthropic.baseUrl } },
      gemini: { keys: [{ id: "gem", value: gemini.apiKey }], network_config: { base_url: gemini.geminiBaseUrl } },
      local: { network_config: { base_url: chatOnly.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  chatOnly.stop();
  gemini.stop();
});

const MODEL = "anthropic/claude-sonnet-4-5";
/** The prompt scripts the mock model's call of the namespace's tool, by its flattened name (scripted-tool-call.ts). */
const START = 'start a helper [call:multi_agent_v1__spawn_agent {"message":"look around"}]';

describe("a namespace of function tools on Anthropic", () => {
  test("goes as <namespace>__<tool>, and the model's call comes back named and namespaced as the client's tool", async () => {
    const response = await client.responses.create({ model: MODEL, input: START, tools: [NAMESPACE] });
    const sent = anthropic.requests.at(-1)!.body.tools as Array<{ name: string; description: string }>;
    expect(sent.map((tool) => tool.name)).toEqual(["multi_agent_v1__spawn_agent", "multi_agent_v1__wait_agent"]);
    expect(sent[0]!.description).toBe("Tools for sub-agents.\n\nStart an agent.");
    expect(response.output).toMatchObject([{ type: "function_call", name: "spawn_agent", namespace: "multi_agent_v1", arguments: JSON.stringify({ message: "look around" }) }]);
  });

  test("streamed, the call's events name the client's tool too", async () => {
    const stream = client.responses.stream({ model: MODEL, input: START, tools: [NAMESPACE] });
    const added: unknown[] = [];
    stream.on("response.output_item.added", (event) => added.push(event.item));
    const response = await stream.finalResponse();
    expect(added).toMatchObject([{ type: "function_call", name: "spawn_agent", namespace: "multi_agent_v1" }]);
    expect(response.output).toMatchObject([{ type: "function_call", name: "spawn_agent", namespace: "multi_agent_v1", status: "completed" }]);
  });

  test("the call sent back with its output reaches Anthropic as the flattened tool's use and result", async () => {
    const first = await client.responses.create({ model: MODEL, input: START, tools: [NAMESPACE] });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client.responses.create({
      model: MODEL,
      tools: [NAMESPACE],
      input: [{ role: "user", content: START }, call, { type: "function_call_output", call_id: call.call_id, output: "agent a1 started" }],
    });
    const messages = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: Array<{ type: string; name?: string }> }>;
    expect(messages[1]!.content).toContainEqual(expect.objectContaining({ type: "tool_use", name: "multi_agent_v1__spawn_agent" }));
    expect(second.output_text).toBe("tool said: agent a1 started");
  });

  test("a namespace tool whose flattened name is already a function's is a 400 naming it", async () => {
    const clash = { type: "function", name: "multi_agent_v1__wait_agent", parameters: { type: "object", properties: {} } };
    const response = await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: "hi", tools: [NAMESPACE, clash] });
    const body = await expectGatewayError(response, 400, { param: "tools[2].name" });
    expect(body.error.message).toContain("multi_agent_v1__wait_agent");
  });
});

describe("web_search on a provider without the Responses API", () => {
  test("becomes Anthropic's server-side web search, with its allowed domains", async () => {
    const response = await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: "news?", tools: [{ type: "web_search", filters: { allowed_domains: ["example.com"] } }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-dropped-tools")).toBeNull();
    expect(anthropic.requests.at(-1)!.body.tools).toEqual([{ type: "web_search_20250305", name: "web_search", allowed_domains: ["example.com"] }]);
  });

  test("becomes Gemini's Google Search grounding, beside function tools from Gemini 3 on, alone before", async () => {
    const weather = { type: "function", name: "get_weather", parameters: { type: "object", properties: {} } };
    const newer = await postJson(`${gw.url}/v1/responses`, { model: "gemini/gemini-3-pro-preview", input: "news?", tools: [weather, { type: "web_search" }] });
    expect(newer.headers.get("x-gw-dropped-tools")).toBeNull();
    expect(gemini.requests.at(-1)!.body.tools).toEqual([{ functionDeclarations: [expect.objectContaining({ name: "get_weather" })] }, { googleSearch: {} }]);
    const alone = await postJson(`${gw.url}/v1/responses`, { model: "gemini/gemini-2.5-flash", input: "news?", tools: [{ type: "web_search" }] });
    expect(alone.headers.get("x-gw-dropped-tools")).toBeNull();
    expect(gemini.requests.at(-1)!.body.tools).toEqual([{ googleSearch: {} }]);
  });

  test("is left out towards a chat-only server, and the reply says so in x-gw-dropped-tools", async () => {
    const response = await postJson(`${gw.url}/v1/responses`, { model: "local/llama3.2", input: "news?", tools: [{ type: "web_search", external_web_access: false }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gw-dropped-tools")).toBe("web_search (the openai format has no web search the gateway can ask for)");
    expect(((await response.json()) as { output_text?: string; output: unknown[] }).output).toMatchObject([{ type: "message" }]);
    expect(chatOnly.requests.at(-1)!.body.tools).toBeUndefined();
  });

  test("a hosted tool that cannot be left out safely (file_search) is still a 400 naming it", async () => {
    const response = await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: "find it", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] });
    const body = await expectGatewayError(response, 400, { param: "tools[0].type" });
    expect(body.error.message).toContain("file_search");
  });
});
