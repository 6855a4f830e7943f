import { expect } from "bun:test";
import type { GatewayConfig } from "../../src/config/schema";
import type { McpSettings } from "../../src/config/sections/mcp";
import { startGateway, type TestGateway } from "../support/gateway";
import { startMcpHttpServer } from "../support/mcp-http-server";
import { type ScriptedModel, startScriptedModel } from "../support/mcp-scripted-model";
import type { TestTool } from "../support/mcp-tools";

export interface ClientView {
  id: string;
  name: string;
  state: string;
  last_error: string | null;
  auth_type: string;
  headers: Record<string, string>;
  per_user_header_keys: string[];
  stdio_config: { command: string; args: string[]; envs: Record<string, string> } | null;
  tools: Array<{ name: string; description: string; input_schema: Record<string, unknown> }>;
  tools_to_execute: string[];
  tools_notice: string | null;
  tools_to_auto_execute: string[];
  tool_pricing: Record<string, number>;
}

/** Fast reconnects and pings, so tests see an upstream drop and return quickly; the test stdio server's runtime may be started. */
export const FAST_MCP: McpSettings = { reconnect_initial_delay_ms: 20, reconnect_max_delay_ms: 100, health_check_interval_seconds: 0.05, stdio_allowed_commands: [process.execPath] };

/** startGateway with an `mcp` config section (the config type declares it once the lead adds it). */
export const startMcpGateway = (config: GatewayConfig & { mcp?: McpSettings } = {}) => startGateway(config as GatewayConfig);

export async function createMcpClient(gw: TestGateway, body: Record<string, unknown>): Promise<ClientView> {
  const response = await gw.admin("/api/mcp/client", { method: "POST", json: body });
  expect({ status: response.status, body: await response.clone().text() }).toMatchObject({ status: 201 });
  return (await response.json()) as ClientView;
}

export async function listClients(gw: TestGateway): Promise<ClientView[]> {
  const response = await gw.admin("/api/mcp/clients");
  expect(response.status).toBe(200);
  return ((await response.json()) as { clients: ClientView[] }).clients;
}

/** Reads the client list until `done` holds: reconnection happens on the gateway's own schedule. */
export async function clientWhen(gw: TestGateway, id: string, done: (client: ClientView) => boolean): Promise<ClientView> {
  for (;;) {
    const client = (await listClients(gw)).find((entry) => entry.id === id);
    if (client && done(client)) return client;
    await Bun.sleep(10);
  }
}

/** POST /v1/mcp/tool/execute with an OpenAI tool call. */
export function executeTool(gw: TestGateway, name: string, args: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/mcp/tool/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ id: `call_${name}`, type: "function", function: { name, arguments: JSON.stringify(args) } }),
  });
}

export async function toolContent(response: Response): Promise<string> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status: 200 });
  return (JSON.parse(text) as { content: string }).content;
}

/** Creates a virtual key through governance and returns its id and value. */
export async function createVirtualKey(gw: TestGateway, name: string, extra: Record<string, unknown> = {}): Promise<{ id: string; value: string }> {
  const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name, ...extra } });
  expect(response.status).toBe(201);
  const { virtual_key } = (await response.json()) as { virtual_key: { id: string; value: string } };
  return virtual_key;
}

/** A gateway whose `openai` model is the scripted one, with one MCP server, `desk`, whose every tool runs in agent mode. */
export interface AgentDesk {
  gw: TestGateway;
  model: ScriptedModel;
  close(): Promise<void>;
}

export async function startAgentDesk(tools: Record<string, TestTool>, mcp: McpSettings = {}): Promise<AgentDesk> {
  const model = startScriptedModel();
  const desk = startMcpHttpServer({ tools });
  const gw = await startMcpGateway({ mcp, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream-model-key-0001" }], network_config: { base_url: model.baseUrl } } } });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"], tools_to_auto_execute: ["*"] });
  return {
    gw,
    model,
    async close() {
      await gw.close();
      model.stop();
      await desk.stop();
    },
  };
}
