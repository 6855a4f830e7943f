import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { GatewayConfig } from "../../src/config/schema";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { STDIO_SERVER_PATH } from "../support/mcp-stdio-server";
import { STANDARD_TOOLS, text } from "../support/mcp-tools";
import { createMcpClient, executeTool, FAST_MCP, listClients, startMcpGateway, toolContent } from "./support";

let first: TestGateway;
let second: TestGateway;
let weather: McpHttpServer;
let relocated: McpHttpServer;
let gated: McpHttpServer;
let release: () => void;
/** Each node looks for the other's changes every 100 ms. */
const NODE_MCP = { ...FAST_MCP, change_check_interval_ms: 100 };
const gate = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  weather = startMcpHttpServer();
  relocated = startMcpHttpServer();
  const waitForGate = {
    description: "Answers once the test opens the gate",
    async run() {
      await gate;
      return text("the gate opened");
    },
  };
  gated = startMcpHttpServer({ tools: { ...STANDARD_TOOLS, wait_for_gate: waitForGate } });
  first = await startMcpGateway({ mcp: NODE_MCP });
  second = await startGateway({ mcp: NODE_MCP } as GatewayConfig, { databaseUrl: first.databaseUrl });
});
afterAll(async () => {
  release();
  await second.close();
  await first.close();
  await Promise.all([weather.stop(), relocated.stop(), gated.stop()]);
});

/** Each step waits for the other node's next check for changes. */
const STEPS_TIMEOUT_MS = 15_000;

/** Calls the tool on `node` until it answers `status` (nodes check for each other's changes on an interval). */
const callUntil = (node: TestGateway, tool: string, args: Record<string, unknown>, status: number) =>
  eventually(
    () => executeTool(node, tool, args),
    (response) => response.status === status,
  );

test("a client added, moved to another server or removed on one node is used that way by the other, without a restart", async () => {
  const client = await createMcpClient(first, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"] });
  expect(await toolContent(await callUntil(second, "weather-add", { a: 2, b: 3 }, 200))).toBe("5");

  const moved = await first.admin(`/api/mcp/client/${client.id}`, { method: "PUT", json: { connection_string: relocated.url } });
  expect(moved.status).toBe(200);
  const answered = await eventually(
    async () => toolContent(await executeTool(second, "weather-get_weather", { city: "Lisbon" })),
    () => relocated.calls.some((call) => call.name === "get_weather"),
  );
  expect(answered).toBe("Sunny and 21C in Lisbon");
  expect(relocated.calls.filter((call) => call.name === "get_weather")).toEqual([{ name: "get_weather", arguments: { city: "Lisbon" } }]);

  expect((await first.admin(`/api/mcp/client/${client.id}`, { method: "DELETE" })).status).toBe(200);
  const gone = await callUntil(second, "weather-add", { a: 1, b: 1 }, 404);
  await expectGatewayError(gone, 404, { errorType: "caller_mcp_tool_not_found" });
  expect((await listClients(second)).map((entry) => entry.name)).not.toContain("weather");
}, STEPS_TIMEOUT_MS);

test("a client changed on another node reconnects there without cutting its call in flight, and the unchanged clients keep their session", async () => {
  await createMcpClient(first, { name: "local", connection_type: "stdio", stdio_config: { command: process.execPath, args: [STDIO_SERVER_PATH] }, tools_to_execute: ["process_id"] });
  const gatedClient = await createMcpClient(first, { name: "gated", connection_type: "http", connection_string: gated.url, tools_to_execute: ["*"] });
  const processBefore = await toolContent(await callUntil(second, "local-process_id", {}, 200));
  await callUntil(second, "gated-add", { a: 1, b: 2 }, 200);

  const inFlight = executeTool(second, "gated-wait_for_gate");
  await eventually(
    async () => gated.calls.filter((call) => call.name === "wait_for_gate").length,
    (calls) => calls === 1,
  );
  const repriced = await first.admin(`/api/mcp/client/${gatedClient.id}`, { method: "PUT", json: { tool_pricing: { wait_for_gate: 0.25 } } });
  expect(repriced.status).toBe(200);
  const seenOnSecond = await eventually(
    async () => (await listClients(second)).find((entry) => entry.name === "gated"),
    (entry) => entry?.tool_pricing.wait_for_gate === 0.25 && entry.state === "connected",
  );
  expect(seenOnSecond).toMatchObject({ tool_pricing: { wait_for_gate: 0.25 }, state: "connected" });

  release();
  expect(await toolContent(await inFlight)).toBe("the gate opened");
  expect(await toolContent(await executeTool(second, "local-process_id"))).toBe(processBefore);
}, STEPS_TIMEOUT_MS);

/** The tools `node` serves at /mcp/v/{slug} to an MCP client, or the HTTP status that refused it. */
async function servedAt(node: TestGateway, slug: string): Promise<string[] | number> {
  const client = new Client({ name: "several-nodes-test", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp/v/${slug}`)));
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } catch (error) {
    return (error as { code?: number }).code ?? 0;
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function callOn(node: TestGateway, slug: string, name: string, args: Record<string, unknown>): Promise<string> {
  const client = new Client({ name: "several-nodes-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp/v/${slug}`)));
  try {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
  } finally {
    await client.close();
  }
}

test("a virtual server created, edited and deleted on one node is served that way at /mcp/v/{slug} by the other", async () => {
  await createMcpClient(first, { name: "trips", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"] });
  const created = await first.admin("/api/mcp/virtual-servers", { method: "POST", json: { slug: "travel", tools: [{ client: "trips", tool: "get_weather", name: "forecast" }] } });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  expect(await eventually(() => servedAt(second, "travel"), (served) => Array.isArray(served))).toEqual(["forecast"]);
  expect(await callOn(second, "travel", "forecast", { city: "Bergen" })).toBe("Sunny and 21C in Bergen");

  const edited = await first.admin(`/api/mcp/virtual-servers/${id}`, { method: "PUT", json: { tools: [{ client: "trips", tool: "get_weather", name: "forecast" }, { client: "trips", tool: "add", name: "sum" }] } });
  expect(edited.status).toBe(200);
  expect(await eventually(() => servedAt(second, "travel"), (served) => Array.isArray(served) && served.includes("sum"))).toEqual(["forecast", "sum"]);
  expect(await callOn(second, "travel", "sum", { a: 2, b: 3 })).toBe("5");

  expect((await first.admin(`/api/mcp/virtual-servers/${id}`, { method: "DELETE" })).status).toBe(200);
  expect(await eventually(() => servedAt(second, "travel"), (served) => served === 404)).toBe(404);
}, STEPS_TIMEOUT_MS);
