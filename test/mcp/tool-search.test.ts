import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import type { TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import { type TestTool, text } from "../support/mcp-tools";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

/** An office's tools, a few per domain: tool search picks among them. */
const OFFICE: Record<string, TestTool> = {
  create_invoice: {
    description: "Creates an invoice for a customer and returns its number",
    properties: { customer: { type: "string" }, amount: { type: "number" } },
    run: ({ customer, amount }) => text(`invoice INV-7 for ${String(customer)}: ${String(amount)}`),
  },
  get_weather: { description: "Current weather for a city", properties: { city: { type: "string" } }, run: ({ city }) => text(`Sunny in ${String(city)}`) },
  list_calendar_events: { description: "Lists the events of a calendar between two dates", properties: { calendar_id: { type: "string" }, start: { type: "string" }, end: { type: "string" } }, run: () => text("no events") },
  send_email: { description: "Sends an email message to a recipient", properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } }, run: () => text("sent") },
  search_issues: { description: "Searches the issue tracker for issues matching a query", properties: { query: { type: "string" } }, run: () => text("no issues") },
  restart_server: { description: "Restarts a server of the fleet", properties: { hostname: { type: "string" } }, run: () => text("restarted") },
  convert_currency: { description: "Converts an amount between currencies", properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } }, run: () => text("42") },
  translate_text: { description: "Translates text into another language", properties: { text: { type: "string" }, target_language: { type: "string" } }, run: () => text("hola") },
};

/** Words standing for one idea each: the mock embedding model places a text by the ideas its words name. */
const IDEAS = [
  ["invoice", "bill", "charge", "payment"],
  ["weather", "forecast", "rain", "sunny"],
  ["calendar", "event", "meeting", "schedule"],
  ["email", "mail", "recipient"],
  ["issue", "bug", "ticket", "tracker"],
  ["server", "restart", "reboot", "fleet"],
  ["currenc", "convert", "exchange"],
  ["translat", "language"],
];

/** An OpenAI-compatible embeddings server whose vectors carry meaning (one dimension per idea); it fails while `down`, and for a text saying "offline". */
function startIdeaEmbedder() {
  const state = { down: false };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { input: string[] };
      if (state.down || body.input.some((input) => input.includes("offline"))) return Response.json({ error: { message: "embedding model offline" } }, { status: 500 });
      const vector = (input: string) => [0.01, ...IDEAS.map((words) => words.filter((word) => input.toLowerCase().includes(word)).length)];
      return Response.json({ object: "list", data: body.input.map((input, index) => ({ object: "embedding", index, embedding: vector(input) })), usage: { prompt_tokens: 1, total_tokens: 1 } });
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, state, stop: () => server.stop(true) };
}

type Tool = { function: { name: string } };
const toolNames = (request: Record<string, unknown> | undefined) => ((request?.tools ?? []) as Tool[]).map((tool) => tool.function.name).sort();
const lastToolMessage = (request: Record<string, unknown> | undefined) => ((request?.messages ?? []) as Array<{ role: string; content: string }>).findLast((message) => message.role === "tool")?.content;
const foundNames = (request: Record<string, unknown> | undefined) => (JSON.parse(lastToolMessage(request) ?? "{}") as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);

let gw: TestGateway;
let model: ScriptedModel;
let office: McpHttpServer;
let embedder: ReturnType<typeof startIdeaEmbedder>;
let claude: MockAnthropic;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  model = startScriptedModel();
  office = startMcpHttpServer({ tools: OFFICE });
  embedder = startIdeaEmbedder();
  claude = startMockAnthropic("sk-ant-upstream-key-0001");
  gw = await startMcpGateway({
    mcp: { tool_search_embedding_model: "ideas/idea-embed-1" },
    providers: {
      openai: { keys: [{ id: "k1", value: "sk-upstream-model-key-0001" }], network_config: { base_url: model.baseUrl } },
      ideas: { custom_provider_config: { base_provider_type: "openai" }, network_config: { base_url: embedder.baseUrl, max_retries: 0 } },
      anthropic: { keys: [{ id: "a1", value: "sk-ant-upstream-key-0001" }], network_config: { base_url: claude.baseUrl } },
    },
  } as Parameters<typeof startMcpGateway>[0]);
  await createMcpClient(gw, { name: "auto", connection_type: "http", connection_string: office.url, tools_to_execute: ["*"], tools_to_auto_execute: ["*"] });
  await createMcpClient(gw, { name: "manual", connection_type: "http", connection_string: office.url, tools_to_execute: ["*"] });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  model.stop();
  embedder.stop();
  claude.stop();
  await office.stop();
});

const ask = (content: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  openai.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming, { headers });

describe("tool search in agent mode", () => {
  test("the model gets search_tools alone, the gateway answers it by meaning, loads the tool found and runs it", async () => {
    const before = model.requests.length;
    const calls = office.calls.length;
    const completion = await ask('call search_tools {"query":"charge ACME for the consulting work"} then call auto-create_invoice {"customer":"ACME","amount":120}', {
      "x-gw-mcp-tool-search": "true",
      "x-gw-mcp-include-clients": "auto",
    });
    expect(completion.choices[0]!.message.content).toBe("results: invoice INV-7 for ACME: 120");
    const [first, second, third] = model.requests.slice(before);
    expect(model.requests.length - before).toBe(3);
    expect(toolNames(first)).toEqual(["search_tools"]);
    // No word of the query is in the tool's name or description: only the embedding finds it.
    expect(foundNames(second)[0]).toBe("auto-create_invoice");
    expect(toolNames(second)).toContain("auto-create_invoice");
    expect(toolNames(second)).not.toContain("auto-send_email");
    expect(toolNames(third)).toContain("auto-create_invoice");
    expect(office.calls.slice(calls)).toEqual([{ name: "create_invoice", arguments: { customer: "ACME", amount: 120 } }]);
  });

  test("a stream runs the same loop", async () => {
    const before = model.requests.length;
    const stream = await openai.chat.completions.create(
      { model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: 'call search_tools {"query":"weather forecast"} then call auto-get_weather {"city":"Oslo"}' }] },
      { headers: { "x-gw-mcp-tool-search": "true", "x-gw-mcp-include-clients": "auto" } },
    );
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
    expect(content).toBe("results: Sunny in Oslo");
    expect(toolNames(model.requests[before])).toEqual(["search_tools"]);
    expect(toolNames(model.requests[before + 1])).toContain("auto-get_weather");
  });

  test("when the embedding model fails, search_tools answers by keywords", async () => {
    const before = model.requests.length;
    const completion = await ask('call search_tools {"query":"create invoice offline"} then call auto-create_invoice {"customer":"Initech","amount":5}', {
      "x-gw-mcp-tool-search": "true",
      "x-gw-mcp-include-clients": "auto",
    });
    expect(completion.choices[0]!.message.content).toBe("results: invoice INV-7 for Initech: 5");
    expect(foundNames(model.requests[before + 1])).toEqual(["auto-create_invoice"]);
  });

  test("a catalogue whose embedding failed is searched by keywords, and embedded again by the next search", async () => {
    const search = async (query: string) => {
      const before = model.requests.length;
      await ask(`call search_tools {"query":"${query}"}`, { "x-gw-mcp-tool-search": "true", "x-gw-mcp-include-clients": "auto" });
      return foundNames(model.requests[before + 1]);
    };
    embedder.state.down = true;
    // A new client changes the catalogue: its index is built again, and its embedding fails.
    await createMcpClient(gw, { name: "spare", connection_type: "http", connection_string: office.url, tools_to_execute: ["*"] });
    expect(await search("create invoice")).toEqual(["auto-create_invoice"]);
    expect(await search("charge ACME for the consulting work")).toEqual([]);
    embedder.state.down = false;
    expect((await search("charge ACME for the consulting work"))[0]).toBe("auto-create_invoice");
  });

  test("a client declaring its own search_tools keeps it, and gets every MCP tool as without search", async () => {
    const own: OpenAI.ChatCompletionTool = { type: "function", function: { name: "search_tools", parameters: { type: "object", properties: {} } } };
    await ask("hello", { "x-gw-mcp-tool-search": "true", "x-gw-mcp-include-clients": "manual" }, { tools: [own] });
    expect(toolNames(model.requests.at(-1))).toEqual(["search_tools", ...Object.keys(OFFICE).map((name) => `manual-${name}`)].sort());
  });
});

describe("tool search set on a virtual key, tools run by the client", () => {
  test("the pinned tools come with search_tools; a found tool is offered in the next turn and on the client's next request", async () => {
    const key = await createVirtualKey(gw, "searching", {
      mcp_configs: [{ mcp_client_name: "manual", tools_to_execute: ["*"] }],
      mcp_tool_search: { enabled: true, pinned: ["manual-get_weather"], max_results: 2 },
    });
    const before = model.requests.length;
    const calls = office.calls.length;
    const script = 'call search_tools {"query":"bill a customer"} then call manual-create_invoice {"customer":"ACME","amount":9}';
    const completion = await ask(script, { "x-gw-vk": key.value });
    const [first, second] = model.requests.slice(before);
    expect(toolNames(first)).toEqual(["manual-get_weather", "search_tools"]);
    expect(foundNames(second)).toHaveLength(2);
    expect(foundNames(second)[0]).toBe("manual-create_invoice");
    expect(toolNames(second)).toEqual([...new Set(["manual-get_weather", "search_tools", ...foundNames(second)])].sort());
    // Not auto-executable: the client gets the call and runs it.
    const call = completion.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("manual-create_invoice");
    expect(office.calls.length).toBe(calls);

    await openai.chat.completions.create(
      { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "thanks" }, completion.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "invoice INV-8" }] },
      { headers: { "x-gw-vk": key.value } },
    );
    expect(toolNames(model.requests.at(-1))).toEqual(["manual-create_invoice", "manual-get_weather", "search_tools"]);
  });

  test("x-gw-mcp-tool-search: false gives such a key's request every tool", async () => {
    const key = await createVirtualKey(gw, "searching but not now", { mcp_configs: [{ mcp_client_name: "manual", tools_to_execute: ["*"] }], mcp_tool_search: { enabled: true } });
    await ask("hello", { "x-gw-vk": key.value, "x-gw-mcp-tool-search": "false" });
    expect(toolNames(model.requests.at(-1))).toHaveLength(Object.keys(OFFICE).length);
  });

  test("a key's mcp_tool_search is shown, changed and cleared through the API", async () => {
    const key = await createVirtualKey(gw, "search settings", { mcp_tool_search: { enabled: true, max_results: 3 } });
    const shown = async () => ((await (await gw.admin(`/api/governance/virtual-keys/${key.id}`)).json()) as { virtual_key: { mcp_tool_search: unknown } }).virtual_key.mcp_tool_search;
    expect(await shown()).toEqual({ enabled: true, max_results: 3 });
    expect((await gw.admin(`/api/governance/virtual-keys/${key.id}`, { method: "PUT", json: { mcp_tool_search: null } })).status).toBe(200);
    expect(await shown()).toBeNull();
  });
});

describe("tool search asked for in the body", () => {
  test("mcp_tool_search turns it on with its own settings and does not reach the model", async () => {
    const before = model.requests.length;
    await ask('call search_tools {"query":"send an email"}', { "x-gw-mcp-include-clients": "manual" }, { mcp_tool_search: { max_results: 1, pinned: ["manual-translate_text"] } });
    const [first, second] = model.requests.slice(before);
    expect(first).not.toHaveProperty("mcp_tool_search");
    expect(toolNames(first)).toEqual(["manual-translate_text", "search_tools"]);
    expect(foundNames(second)).toEqual(["manual-send_email"]);
  });
});

describe("bad tool search settings", () => {
  test("are refused with a 400 naming the header or field", async () => {
    const chat = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
      fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...body }) });
    await expectGatewayError(await chat({ "x-gw-mcp-tool-search": "yes" }), 400, { param: "x-gw-mcp-tool-search" });
    await expectGatewayError(await chat({}, { mcp_tool_search: { max_results: 0 } }), 400, { param: "mcp_tool_search.max_results" });
    await expectGatewayError(await chat({}, { mcp_tool_search: { pinned: [""] } }), 400, { param: "mcp_tool_search.pinned[0]" });
    await expectGatewayError(await chat({}, { mcp_tool_search: "on" }), 400, { param: "mcp_tool_search" });
    const key = (json: Record<string, unknown>) => gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: `bad ${crypto.randomUUID()}`, ...json } });
    // The field may be null, so the key's validation names the field as a whole.
    await expectGatewayError(await key({ mcp_tool_search: { max_results: 500 } }), 400, { param: "mcp_tool_search" });
    await expectGatewayError(await key({ mcp_tool_search: { enabled: "yes" } }), 400, { param: "mcp_tool_search" });
  });
});

interface McpLogRow {
  tool_name: string;
  server_label: string;
  mcp_client_id: string | null;
  source: string;
  status: string;
  arguments: unknown;
  result: string | null;
  error_message: string | null;
  latency: number | null;
  virtual_key_id: string | null;
  virtual_key_name: string | null;
  virtual_server: string | null;
  llm_request_id: string | null;
}

async function mcpLogs(query: string): Promise<McpLogRow[]> {
  const response = await gw.admin(`/api/mcp-logs?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { logs: McpLogRow[] }).logs;
}

describe("tool searches in the MCP log", () => {
  test("a chat request's search is a row of its own: the query, the names found and their count, its latency and key, no upstream", async () => {
    const key = await createVirtualKey(gw, "logged searches", { mcp_configs: [{ mcp_client_name: "manual", tools_to_execute: ["*"] }], mcp_tool_search: { enabled: true, max_results: 2 } });
    const before = model.requests.length;
    await ask('call search_tools {"query":"bill a customer"}', { "x-gw-vk": key.value });
    const found = foundNames(model.requests[before + 1]);
    const rows = await mcpLogs(`tool_names=search_tools&virtual_key_ids=${key.id}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      server_label: "tool-search",
      mcp_client_id: null,
      source: "agent",
      status: "success",
      arguments: { query: "bill a customer" },
      virtual_key_name: "logged searches",
      virtual_server: null,
    });
    expect(JSON.parse(rows[0]!.result!)).toEqual({ found: 2, tools: found });
    expect(rows[0]!.latency).toBeGreaterThanOrEqual(0);
    expect(rows[0]!.llm_request_id).not.toBeNull();
    // Filtered like any tool's rows, by its server label too.
    expect(await mcpLogs(`server_labels=tool-search&virtual_key_ids=${key.id}`)).toHaveLength(1);
  });

  test("a virtual server's search is logged under its slug; a search without a query is an error row", async () => {
    const created = await gw.admin("/api/mcp/virtual-servers", {
      method: "POST",
      json: { slug: "office-search", tools: [{ client: "auto", tool: "get_weather" }, { client: "auto", tool: "send_email" }], tool_search: { enabled: true } },
    });
    expect(created.status).toBe(201);
    const client = new Client({ name: "tool-search-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/v/office-search`)));
    try {
      await client.callTool({ name: "search_tools", arguments: { query: "email a recipient" } });
      await client.callTool({ name: "search_tools", arguments: {} });
    } finally {
      await client.close();
    }
    const rows = await mcpLogs("virtual_servers=office-search&tool_names=search_tools");
    expect(rows.map((row) => [row.source, row.server_label, row.mcp_client_id])).toEqual([
      ["mcp_server", "tool-search", null],
      ["mcp_server", "tool-search", null],
    ]);
    const found = rows.find((row) => row.status === "success")!;
    expect(found.arguments).toEqual({ query: "email a recipient" });
    expect(JSON.parse(found.result!)).toMatchObject({ tools: expect.arrayContaining(["send_email"]) });
    expect(rows.find((row) => row.status === "error")!.error_message).toContain("needs a query");
  });
});

type AnthropicTool = { name: string };
const anthropicToolNames = (index: number) => ((claude.requests[index]?.body.tools ?? []) as AnthropicTool[]).map((tool) => tool.name).sort();
type Block = { type: string; text?: string; content?: Array<{ type: string; text?: string }> };
/** The names the last search answered, read from the tool_result the gateway fed back. */
const anthropicFound = (index: number) => {
  const turn = (claude.requests[index]!.body.messages as Array<{ role: string; content: Block[] }>).at(-1)!;
  const result = turn.content.find((block) => block.type === "tool_result")!;
  return (JSON.parse(result.content![0]!.text!) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
};
const replyText = (message: Anthropic.Message) => message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");

describe("tool search on Anthropic-format requests", () => {
  test("the model gets search_tools and the pinned tools; the gateway answers the search and offers what it found in the next turn", async () => {
    const before = claude.requests.length;
    const message = await anthropic.messages.create(
      { model: "claude-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: '[call:search_tools {"query":"charge ACME for the consulting work"}]' }] },
      { headers: { "x-gw-mcp-tool-search": "true", "x-gw-mcp-include-clients": "auto" } },
    );
    expect(claude.requests.length - before).toBe(2);
    expect(anthropicToolNames(before)).toEqual(["search_tools"]);
    expect(anthropicFound(before + 1)[0]).toBe("auto-create_invoice");
    expect(anthropicToolNames(before + 1)).toContain("auto-create_invoice");
    expect(anthropicToolNames(before + 1)).not.toContain("auto-send_email");
    expect(message.stop_reason).toBe("end_turn");
    expect(replyText(message)).toStartWith("tool said: ");
  });

  test("an auto-executable tool the model calls is run by the gateway, as in agent mode", async () => {
    const calls = office.calls.length;
    const message = await anthropic.messages.create(
      { model: "claude-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: '[call:auto-get_weather {"city":"Oslo"}]' }], mcp_tool_search: { pinned: ["auto-get_weather"] } } as Anthropic.MessageCreateParamsNonStreaming,
      { headers: { "x-gw-mcp-include-clients": "auto" } },
    );
    expect(replyText(message)).toBe("tool said: Sunny in Oslo");
    expect(office.calls.slice(calls)).toEqual([{ name: "get_weather", arguments: { city: "Oslo" } }]);
    expect(claude.requests.at(-1)!.body).not.toHaveProperty("mcp_tool_search");
  });

  test("a stream runs the same rounds in one message: the client reads the answer, never the search", async () => {
    const before = claude.requests.length;
    const stream = anthropic.messages.stream(
      { model: "claude-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: '[call:search_tools {"query":"weather forecast"}]' }] },
      { headers: { "x-gw-mcp-tool-search": "true", "x-gw-mcp-include-clients": "auto" } },
    );
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(["text"]);
    expect(replyText(message)).toStartWith("tool said: ");
    expect(message.stop_reason).toBe("end_turn");
    expect(claude.requests.length - before).toBe(2);
    expect(claude.requests[before + 1]!.body.stream).toBe(true);
    expect(anthropicFound(before + 1)[0]).toBe("auto-get_weather");
    expect(anthropicToolNames(before + 1)).toContain("auto-get_weather");
  });

  test("on a stream, a call of a tool the client runs reaches it whole", async () => {
    const before = claude.requests.length;
    const stream = anthropic.messages.stream(
      { model: "claude-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: '[call:manual-get_weather {"city":"Rome"}]' }], mcp_tool_search: { pinned: ["manual-get_weather"] } } as Anthropic.MessageStreamParams,
      { headers: { "x-gw-mcp-include-clients": "manual" } },
    );
    const message = await stream.finalMessage();
    expect(anthropicToolNames(before)).toEqual(["manual-get_weather", "search_tools"]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([expect.objectContaining({ type: "tool_use", name: "manual-get_weather", input: { city: "Rome" } })]);
  });

  test("a key's setting applies, and a tool the conversation already called stays offered", async () => {
    const key = await createVirtualKey(gw, "searching in anthropic", { mcp_configs: [{ mcp_client_name: "manual", tools_to_execute: ["*"] }], mcp_tool_search: { enabled: true, pinned: ["manual-get_weather"] } });
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: "bill ACME" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "manual-create_invoice", input: { customer: "ACME", amount: 3 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "invoice INV-9" }] },
    ];
    const before = claude.requests.length;
    await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: history }, { headers: { "x-gw-vk": key.value } });
    expect(anthropicToolNames(before)).toEqual(["manual-create_invoice", "manual-get_weather", "search_tools"]);
  });
});
