import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { STDIO_SERVER_PATH } from "../support/mcp-stdio-server";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

let gw: TestGateway;
let weather: McpHttpServer;
const clients: Client[] = [];

/** The MCP SDK's own client, connected to the gateway's /mcp. */
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "gateway-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join("");

beforeAll(async () => {
  weather = startMcpHttpServer();
  gw = await startMcpGateway({ mcp: { stdio_allowed_commands: [process.execPath] } });
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["get_weather", "add"] });
  await createMcpClient(gw, { name: "local", connection_type: "stdio", stdio_config: { command: process.execPath, args: [STDIO_SERVER_PATH] }, tools_to_execute: ["process_id"] });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gw.close();
  await weather.stop();
});

describe("POST /mcp: the gateway as an MCP server", () => {
  test("lists the aggregated tools it may show, named <client>-<tool>, with their input schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["local-process_id", "weather-add", "weather-get_weather"]);
    expect(tools.find((tool) => tool.name === "weather-get_weather")).toMatchObject({ description: "Current weather for a city", inputSchema: { type: "object", properties: { city: { type: "string" } } } });
  });

  test("calls a tool on the upstream that owns it", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "weather-get_weather", arguments: { city: "Berlin" } });
    expect(textOf(result)).toBe("Sunny and 21C in Berlin");
    expect(weather.calls.at(-1)).toEqual({ name: "get_weather", arguments: { city: "Berlin" } });
    const pid = await client.callTool({ name: "local-process_id", arguments: {} });
    expect(Number(textOf(pid))).toBeGreaterThan(0);
  });

  test("a tool it does not offer is a protocol error", async () => {
    const client = await connect();
    await expect(client.callTool({ name: "weather-fail", arguments: {} })).rejects.toThrow(/not allowed/);
  });

  test("authenticated by virtual key: the key's mcp_configs decide what it sees and calls", async () => {
    const key = await createVirtualKey(gw, "mcp-weather", { mcp_configs: [{ mcp_client_name: "weather", tools_to_execute: ["add"] }] });
    const client = await connect({ authorization: `Bearer ${key.value}` });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["weather-add"]);
    expect(textOf(await client.callTool({ name: "weather-add", arguments: { a: 20, b: 22 } }))).toBe("42");
    await expect(client.callTool({ name: "local-process_id", arguments: {} })).rejects.toThrow();
    const logs = (await (await gw.admin(`/api/mcp-logs?virtual_key_ids=${key.id}`)).json()) as { logs: Array<{ tool_name: string; source: string }> };
    expect(logs.logs).toEqual([expect.objectContaining({ tool_name: "add", source: "mcp_server" })]);
  });

  for (const [label, weatherConfig] of [
    ["without tools_to_execute", { mcp_client_name: "weather" }],
    ["with an empty tools_to_execute", { mcp_client_name: "weather", tools_to_execute: [] }],
  ] as const) {
    test(`a virtual key's mcp_configs entry ${label} gives none of that client's tools`, async () => {
      const key = await createVirtualKey(gw, `mcp-no-weather ${label}`, { mcp_configs: [weatherConfig, { mcp_client_name: "local", tools_to_execute: ["*"] }] });
      const client = await connect({ authorization: `Bearer ${key.value}` });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["local-process_id"]);
      const calls = weather.calls.length;
      await expect(client.callTool({ name: "weather-add", arguments: { a: 1, b: 2 } })).rejects.toThrow(/not allowed/);
      await expect(client.callTool({ name: "weather-get_weather", arguments: { city: "Lima" } })).rejects.toThrow(/not allowed/);
      expect(weather.calls.length).toBe(calls);
      expect(Number(textOf(await client.callTool({ name: "local-process_id", arguments: {} })))).toBeGreaterThan(0);
    });
  }

  test("an invalid virtual key is refused before any MCP exchange", async () => {
    const response = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-gw-vk": "sk-gw-unknown" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    await expect(connect({ "x-gw-vk": "sk-gw-unknown" })).rejects.toThrow(/401/);
  });
});
