import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, listClients, startMcpGateway } from "./support";

let gw: TestGateway;
let weather: McpHttpServer;

beforeAll(async () => {
  weather = startMcpHttpServer();
  gw = await startMcpGateway();
});
afterAll(async () => {
  await gw.close();
  await weather.stop();
});

test("a client registered without tools_to_execute says, in its GET and in tools/list, that no tool is selected and how to select them", async () => {
  const created = await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url });
  expect(created.tools_notice).toBe(`MCP client 'weather' has no tools selected, so its 3 tools are hidden: set tools_to_execute to ["*"] or to tool names (PUT /api/mcp/client/${created.id})`);
  expect((await listClients(gw))[0]!.tools_notice).toBe(created.tools_notice);

  const client = new Client({ name: "notice-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  const listed = await client.listTools();
  expect(listed.tools).toEqual([]);
  expect(listed._meta).toEqual({ "ai-gateway/notice": created.tools_notice });

  const selected = await gw.admin(`/api/mcp/client/${created.id}`, { method: "PUT", json: { tools_to_execute: ["*"] } });
  expect(((await selected.json()) as { tools_notice: string | null }).tools_notice).toBeNull();
  const after = await client.listTools();
  expect(after.tools).toHaveLength(3);
  expect(after._meta).toBeUndefined();
  await client.close();
});
