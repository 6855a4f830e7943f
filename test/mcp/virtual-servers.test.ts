import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { CHART_HTML, CHART_RESOURCE_META, CHART_TOOL_META, CHART_UI, type McpAppsServer, startMcpAppsServer } from "../support/mcp-apps-server";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

let gw: TestGateway;
let weather: McpHttpServer;
let charts: McpAppsServer;
const clients: Client[] = [];

interface VirtualServerView {
  id: string;
  slug: string;
  path: string;
  tools: Array<{ client: string; tool: string; name?: string }>;
}

async function connect(path: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "virtual-server-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const createServer = (body: Record<string, unknown>) => gw.admin("/api/mcp/virtual-servers", { method: "POST", json: body });

async function created(body: Record<string, unknown>): Promise<VirtualServerView> {
  const response = await createServer(body);
  expect({ status: response.status, body: await response.clone().text() }).toMatchObject({ status: 201 });
  return (await response.json()) as VirtualServerView;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as Array<{ type: string; text?: string }>).flatMap((part) => part.text ?? []).join("");

/** A JSON-RPC initialize sent by hand, to see the HTTP status a refused caller gets. */
const initialize = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  });

let team: VirtualServerView;

beforeAll(async () => {
  weather = startMcpHttpServer();
  charts = startMcpAppsServer();
  gw = await startMcpGateway({ edition: "enterprise", auth: { admin_username: "operator", admin_password: "correct horse battery staple" } });
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"], tool_pricing: { get_weather: 0.25 } });
  await createMcpClient(gw, { name: "charts", connection_type: "http", connection_string: charts.url, tools_to_execute: ["*"] });
  team = await created({
    slug: "team-a",
    name: "Team A",
    description: "Forecasts and charts for team A",
    tools: [
      { client: "weather", tool: "get_weather", name: "forecast", description: "The forecast for a city" },
      { client: "charts", tool: "echo" },
      { client: "charts", tool: "show_chart" },
    ],
    resources: [
      { client: "charts", uri: "docs://readme" },
      { client: "charts", uri: "docs://pages/{page}" },
    ],
    prompts: [{ client: "charts", prompt: "summarize", name: "summary" }],
  });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gw.close();
  await weather.stop();
  await charts.stop();
});

describe("a virtual server at /mcp/v/{slug}", () => {
  test("introduces itself by its slug and description and lists only its picks, under its names", async () => {
    const client = await connect(team.path);
    expect(team.path).toBe("/mcp/v/team-a");
    expect(client.getServerVersion()).toMatchObject({ name: "team-a", title: "Team A" });
    expect(client.getInstructions()).toBe("Forecasts and charts for team A");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["echo", "forecast", "show_chart"]);
    expect(tools.find((tool) => tool.name === "forecast")).toMatchObject({ description: "The forecast for a city", inputSchema: { properties: { city: { type: "string" } } } });
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["summary"]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(["docs://readme"]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(["docs://pages/{page}"]);
  });

  test("a renamed tool calls the upstream's own; prompts and templated resources reach their server", async () => {
    const client = await connect(team.path);
    expect(textOf(await client.callTool({ name: "forecast", arguments: { city: "Oslo" } }))).toBe("Sunny and 21C in Oslo");
    expect(weather.calls.at(-1)).toEqual({ name: "get_weather", arguments: { city: "Oslo" } });
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("charts echo: hi");
    const prompt = await client.getPrompt({ name: "summary", arguments: { text: "a long story" } });
    expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Summarize: a long story" });
    expect((await client.readResource({ uri: "docs://pages/intro" })).contents[0]).toMatchObject({ uri: "docs://pages/intro", text: "page intro" });
  });

  test("what it did not pick is not there, under any name", async () => {
    const client = await connect(team.path);
    const calls = weather.calls.length;
    for (const name of ["add", "get_weather", "weather-add", "weather-get_weather"]) await expect(client.callTool({ name, arguments: { a: 1, b: 2, city: "Rome" } })).rejects.toThrow();
    expect(weather.calls.length).toBe(calls);
  });

  test("its calls are logged under its slug: the MCP log and the cost histogram filter by it", async () => {
    const server = await created({ slug: "billing", tools: [{ client: "weather", tool: "get_weather" }] });
    const client = await connect(server.path);
    await client.callTool({ name: "get_weather", arguments: { city: "Lima" } });
    await client.callTool({ name: "get_weather", arguments: { city: "Quito" } });
    const logs = (await (await gw.admin("/api/mcp-logs?virtual_servers=billing")).json()) as { logs: Array<{ tool_name: string; virtual_server: string | null; cost: number; source: string }> };
    expect(logs.logs).toHaveLength(2);
    expect(logs.logs.every((row) => row.tool_name === "get_weather" && row.virtual_server === "billing" && row.source === "mcp_server" && row.cost === 0.25)).toBe(true);
    const histogram = (await (await gw.admin("/api/mcp-logs/histogram/cost?virtual_servers=billing")).json()) as { buckets: Array<{ total_cost: number }> };
    expect(histogram.buckets.reduce((sum, bucket) => sum + bucket.total_cost, 0)).toBeCloseTo(0.5);
  });
});

describe("composing a virtual server", () => {
  test("two tools under one name are refused at save time, naming the field", async () => {
    const clash = await createServer({ slug: "clash", tools: [{ client: "weather", tool: "get_weather", name: "echo" }, { client: "charts", tool: "echo" }] });
    expect((await expectGatewayError(clash, 400, { param: "tools[1].tool" })).error.message).toContain("'echo' is already taken by tools[0]");
    const renamed = await createServer({ slug: "clash", tools: [{ client: "weather", tool: "add" }, { client: "charts", tool: "echo", name: "add" }] });
    await expectGatewayError(renamed, 400, { param: "tools[1].name" });
    const update = await gw.admin(`/api/mcp/virtual-servers/${team.id}`, { method: "PUT", json: { tools: [{ client: "weather", tool: "add", name: "forecast" }, { client: "weather", tool: "get_weather", name: "forecast" }] } });
    await expectGatewayError(update, 400, { param: "tools[1].name" });
  });

  test("a client, virtual key or slug that does not fit is refused", async () => {
    await expectGatewayError(await createServer({ slug: "ghost", tools: [{ client: "nowhere", tool: "x" }] }), 400, { param: "tools[0].client" });
    await expectGatewayError(await createServer({ slug: "ghost", access: { virtual_key_ids: ["no-such-key"] } }), 400, { param: "access.virtual_key_ids[0]" });
    await expectGatewayError(await createServer({ slug: "Not A Slug" }), 400, { param: "slug" });
    await expectGatewayError(await createServer({ slug: "team-a" }), 409, { param: "slug" });
    await expectGatewayError(await createServer({ slug: "two-wholes", resources: [{ client: "charts", uri: "*" }, { client: "weather", uri: "*" }] }), 400, { param: "resources[1].uri" });
  });

  test("a change shows in the next session; a deleted server is gone; each write is in the audit log", async () => {
    const server = await created({ slug: "changing", tools: [{ client: "weather", tool: "add" }] });
    expect((await (await connect(server.path)).listTools()).tools.map((tool) => tool.name)).toEqual(["add"]);
    const updated = await gw.admin(`/api/mcp/virtual-servers/${server.id}`, { method: "PUT", json: { tools: [{ client: "weather", tool: "add", name: "sum" }] } });
    expect(updated.status).toBe(200);
    expect((await (await connect(server.path)).listTools()).tools.map((tool) => tool.name)).toEqual(["sum"]);
    const listed = (await (await gw.admin("/api/mcp/virtual-servers")).json()) as { virtual_servers: VirtualServerView[] };
    expect(listed.virtual_servers.find((entry) => entry.id === server.id)?.tools).toEqual([{ client: "weather", tool: "add", name: "sum" }]);
    expect((await gw.admin(`/api/mcp/virtual-servers/${server.id}`, { method: "DELETE" })).status).toBe(200);
    await expectGatewayError(await initialize(server.path), 404, { errorType: "caller_mcp_virtual_server_not_found" });
    const audit = (await (await gw.admin(`/api/governance/audit-logs?target=${server.id}`)).json()) as { audit_logs: Array<{ action: string; summary: { before?: unknown; after?: unknown } }> };
    expect(audit.audit_logs.map((event) => event.action).sort()).toEqual(["MCPVirtualServers:Create", "MCPVirtualServers:Delete", "MCPVirtualServers:Update"]);
    expect(audit.audit_logs.find((event) => event.action === "MCPVirtualServers:Update")?.summary).toMatchObject({ before: { tools: [{ tool: "add" }] }, after: { tools: [{ tool: "add", name: "sum" }] } });
  });
});

describe("who may connect", () => {
  test("a server naming its virtual keys admits those: another key is a 403, no key a 401", async () => {
    const allowed = await createVirtualKey(gw, "team-b member");
    const other = await createVirtualKey(gw, "outsider");
    const server = await created({ slug: "team-b", tools: [{ client: "weather", tool: "add" }], access: { virtual_key_ids: [allowed.id] } });
    const client = await connect(server.path, { authorization: `Bearer ${allowed.value}` });
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    await expectGatewayError(await initialize(server.path, { authorization: `Bearer ${other.value}` }), 403, { errorType: "policy_mcp_virtual_server_not_allowed" });
    await expectGatewayError(await initialize(server.path), 401, { errorType: "caller_virtual_key_required" });
  });

  test("dashboard users of a role it names connect with their session token; users of another role get 403", async () => {
    const role = async (name: string) => ((await (await gw.admin("/api/governance/rbac/roles", { method: "POST", json: { name, permission_ids: [] } })).json()) as { id: number }).id;
    const [builders, others] = [await role("builders"), await role("others")];
    const tokenOf = async (username: string, role_id: number) => {
      expect((await gw.admin("/api/governance/rbac/users", { method: "POST", json: { username, role_id, password: `${username}-password` } })).status).toBe(201);
      const login = await fetch(`${gw.url}/api/session/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password: `${username}-password` }) });
      return ((await login.json()) as { token: string }).token;
    };
    const server = await created({ slug: "builders", tools: [{ client: "weather", tool: "add" }], access: { virtual_key_ids: [], role_ids: [builders] } });
    const client = await connect(server.path, { authorization: `Bearer ${await tokenOf("bea", builders)}` });
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 4, b: 5 } }))).toBe("9");
    await expectGatewayError(await initialize(server.path, { authorization: `Bearer ${await tokenOf("otto", others)}` }), 403, { errorType: "policy_mcp_virtual_server_not_allowed" });
    const key = await createVirtualKey(gw, "not a builder");
    await expectGatewayError(await initialize(server.path, { authorization: `Bearer ${key.value}` }), 403, { errorType: "policy_mcp_virtual_server_not_allowed" });
  });

  test("a virtual key's own mcp_configs still narrow what it sees there", async () => {
    const narrow = await createVirtualKey(gw, "charts only", { mcp_configs: [{ mcp_client_name: "charts", tools_to_execute: ["echo"] }] });
    const client = await connect(team.path, { authorization: `Bearer ${narrow.value}` });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo"]);
  });
});

describe("tool search on a virtual server", () => {
  let searchable: VirtualServerView;
  const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name);
  beforeAll(async () => {
    searchable = await created({
      slug: "searchable",
      tools: [{ client: "weather", tool: "get_weather", name: "forecast", description: "The weather forecast for a city" }, { client: "weather", tool: "add" }, { client: "charts", tool: "echo" }, { client: "charts", tool: "show_chart" }],
      tool_search: { enabled: true, pinned: ["echo"], max_results: 1 },
    });
  });

  test("a session lists search_tools and the pinned tools; a search answers the best match under the server's name and lists it from then on", async () => {
    const client = await connect(searchable.path);
    expect(names((await client.listTools()).tools)).toEqual(["search_tools", "echo"]);
    const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const answer = JSON.parse(textOf(await client.callTool({ name: "search_tools", arguments: { query: "weather forecast in a city" } }))) as { tools: Array<{ name: string; description: string; input_schema: unknown }> };
    expect(answer.tools).toEqual([{ name: "forecast", description: "The weather forecast for a city", input_schema: expect.objectContaining({ properties: { city: { type: "string" } } }) }]);
    await listChanged;
    expect(names((await client.listTools()).tools)).toEqual(["search_tools", "forecast", "echo"]);
    expect(textOf(await client.callTool({ name: "forecast", arguments: { city: "Lima" } }))).toBe("Sunny and 21C in Lima");
  });

  /** A session-less request: 2025-06-18 without initialize, or 2026-07-28 with its `_meta` and mirrored headers. */
  const rpc = async (revision: string, method: string, params: Record<string, unknown>) => {
    const next = revision === "2026-07-28";
    const meta = { "io.modelcontextprotocol/protocolVersion": revision, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const response = await fetch(`${gw.url}${searchable.path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": revision,
        ...(next ? { "mcp-method": method, ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}) } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: next ? { ...params, _meta: meta } : params }),
    });
    return ((await response.json()) as { result: { tools?: Array<{ name: string }>; content?: Array<{ text: string }>; isError?: boolean } }).result;
  };

  for (const revision of ["2025-06-18", "2026-07-28"]) {
    test(`without a session (${revision}), a tool search found is callable by name directly; a search without a query is a tool error`, async () => {
      expect(names((await rpc(revision, "tools/list", {})).tools!)).toEqual(["search_tools", "echo"]);
      const found = JSON.parse((await rpc(revision, "tools/call", { name: "search_tools", arguments: { query: "add two numbers" } })).content![0]!.text) as { tools: Array<{ name: string }> };
      expect(names(found.tools)).toEqual(["add"]);
      expect((await rpc(revision, "tools/call", { name: "add", arguments: { a: 2, b: 3 } })).content![0]!.text).toBe("5");
      expect(await rpc(revision, "tools/call", { name: "search_tools", arguments: {} })).toMatchObject({ isError: true });
    });
  }

  test("a pinned tool the server does not serve is refused, naming the field; the setting survives a change of another field and turns off with null", async () => {
    await expectGatewayError(await gw.admin(`/api/mcp/virtual-servers/${searchable.id}`, { method: "PUT", json: { tool_search: { enabled: true, pinned: ["get_weather"] } } }), 400, { param: "tool_search.pinned[0]" });
    const read = (await (await gw.admin(`/api/mcp/virtual-servers/${searchable.id}`, { method: "PUT", json: { description: "other fields change alone" } })).json()) as { tool_search: unknown };
    expect(read.tool_search).toEqual({ enabled: true, pinned: ["echo"], max_results: 1 });
    expect((await gw.admin(`/api/mcp/virtual-servers/${searchable.id}`, { method: "PUT", json: { tool_search: null } })).status).toBe(200);
    const client = await connect(searchable.path);
    expect(names((await client.listTools()).tools).sort()).toEqual(["add", "echo", "forecast", "show_chart"]);
  });
});

describe("MCP Apps pass through unchanged", () => {
  for (const [door, path, toolName] of [
    ["/mcp/{client}", "/mcp/charts", "show_chart"],
    ["/mcp", "/mcp", "charts-show_chart"],
    ["a virtual server", "/mcp/v/team-a", "show_chart"],
  ] as const) {
    test(`${door}: the tool's _meta names its ui:// resource, whose read comes back as the server sent it`, async () => {
      const client = await connect(path);
      const tool = (await client.listTools()).tools.find((entry) => entry.name === toolName);
      expect(tool?._meta).toEqual(CHART_TOOL_META);
      const result = await client.callTool({ name: toolName, arguments: { series: "sales" } });
      expect(result.content).toContainEqual({ type: "resource_link", uri: CHART_UI, name: "chart", mimeType: "text/html;profile=mcp-app" });
      expect(result.structuredContent).toEqual({ series: "sales" });
      const read = await client.readResource({ uri: CHART_UI });
      expect(read.contents).toEqual([{ uri: CHART_UI, mimeType: "text/html;profile=mcp-app", text: CHART_HTML, _meta: CHART_RESOURCE_META }]);
    });
  }
});
