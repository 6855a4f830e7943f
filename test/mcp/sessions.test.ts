import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type McpSessionServer, startMcpSessionServer } from "../support/mcp-session-server";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

let gw: TestGateway;
let weather: McpHttpServer;
let desk: McpSessionServer;

const ACCEPT = "application/json, text/event-stream";
const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body: JSON.stringify(body) });
}

async function openSession(headers: Record<string, string> = {}): Promise<string> {
  const response = await post("/mcp", INITIALIZE, headers);
  expect(response.status).toBe(200);
  await response.body?.cancel();
  const id = response.headers.get("mcp-session-id")!;
  const initialized = await post("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, { ...headers, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
  expect(initialized.status).toBe(202);
  return id;
}

beforeAll(async () => {
  weather = startMcpHttpServer();
  desk = startMcpSessionServer();
  gw = await startMcpGateway();
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"] });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"] });
});
afterAll(async () => {
  await gw.close();
  await weather.stop();
  await desk.stop();
});

describe("Streamable HTTP sessions on /mcp", () => {
  test("a request without a session is answered alone, in JSON", async () => {
    const response = await post("/mcp", { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "weather-add", arguments: { a: 2, b: 3 } } });
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "5" }] } });
  });

  test("initialize opens a session whose calls answer as SSE; DELETE ends it", async () => {
    const id = await openSession();
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
    const call = await post("/mcp", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "weather-add", arguments: { a: 20, b: 22 } } }, headers);
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    expect(await call.text()).toContain('"text":"42"');
    const ended = await fetch(`${gw.url}/mcp`, { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    const after = await post("/mcp", { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers);
    expect(after.status).toBe(404);
  });

  test("GET opens the session's own stream", async () => {
    const id = await openSession();
    const stream = await fetch(`${gw.url}/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    await stream.body?.cancel();
  });

  test("GET without a session is a 405 with the gateway error body and `Allow: POST`", async () => {
    const refused = await fetch(`${gw.url}/mcp`);
    expect(refused.headers.get("allow")).toBe("POST");
    expect(refused.headers.get("content-type")).toContain("application/json");
    await expectGatewayError(refused, 405, { errorType: "caller_method_not_allowed" });
  });

  test("a session belongs to the virtual key that opened it", async () => {
    const owner = await createVirtualKey(gw, "session-owner");
    const other = await createVirtualKey(gw, "session-other");
    const id = await openSession({ authorization: `Bearer ${owner.value}` });
    const stolen = await post("/mcp", { jsonrpc: "2.0", id: 4, method: "tools/list" }, { authorization: `Bearer ${other.value}`, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(stolen.status).toBe(404);
    const own = await post("/mcp", { jsonrpc: "2.0", id: 5, method: "tools/list" }, { authorization: `Bearer ${owner.value}`, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  test("/mcp/{client} for a client that does not exist is 404", async () => {
    await expectGatewayError(await post("/mcp/nobody", INITIALIZE), 404, { errorType: "caller_mcp_client_not_found" });
  });

  test("a virtual key's mcp_configs decide which clients' resources and prompts it sees, as for tools", async () => {
    const key = await createVirtualKey(gw, "weather-only", { mcp_configs: [{ mcp_client_name: "weather", tools_to_execute: ["*"] }] });
    const client = new Client({ name: "filtered", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.value}` } } }));
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    await expect(client.readResource({ uri: "desk+note://welcome" })).rejects.toThrow(/no MCP client offers the resource/);
    await expect(client.getPrompt({ name: "desk-greet", arguments: { who: "Ada" } })).rejects.toThrow(/no MCP client offers the prompt/);
    await client.close();
    const open = new Client({ name: "unfiltered", version: "1.0.0" });
    await open.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    expect((await open.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["desk-greet"]);
    await open.close();
  });

  test("every request of a session is checked again: a key's narrowed mcp_configs apply to the session it already has", async () => {
    const key = await createVirtualKey(gw, "narrowed", { mcp_configs: [{ mcp_client_name: "weather", tools_to_execute: ["*"] }] });
    const client = new Client({ name: "narrowed", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.value}` } } }));
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["weather-add", "weather-fail", "weather-get_weather"]);
    const narrowed = await gw.admin(`/api/governance/virtual-keys/${key.id}`, { method: "PUT", json: { mcp_configs: [{ mcp_client_name: "weather", tools_to_execute: ["add"] }] } });
    expect(narrowed.status).toBe(200);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["weather-add"]);
    await expect(client.callTool({ name: "weather-get_weather", arguments: { city: "Oslo" } })).rejects.toThrow(/not allowed/);
    await client.close();
  });

  test("a caller whose answer stream broke gets what it missed with Last-Event-ID", async () => {
    const init = await post("/mcp", { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" } });
    await init.body?.cancel();
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    expect((await post("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
    const call = await post("/mcp", { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "desk-slow", arguments: { steps: 2, interval_ms: 10 } } }, headers);
    const answered = await call.text();
    expect(answered).toContain("done in 2 steps");
    // The stream's first event id, as a client that lost the stream right after it would send.
    const firstId = /^id: (.+)$/m.exec(answered)![1]!;
    const resumed = await fetch(`${gw.url}/mcp`, { headers: { ...headers, accept: "text/event-stream", "last-event-id": firstId } });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.getReader();
    let replayed = "";
    while (!replayed.includes("done in 2 steps")) replayed += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(replayed).toContain('"id":9');
  });

  test("every SSE answer tells the client when to reconnect (the retry field), and the priming event carries it with its id", async () => {
    const init = await post("/mcp", { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" } });
    await init.body?.cancel();
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    expect((await post("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
    const call = await (await post("/mcp", { jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "weather-add", arguments: { a: 1, b: 2 } } }, headers)).text();
    expect(call).toMatch(/^id: \S+\nretry: \d+\ndata: \n\n/m);
    // The session's own stream, which may stay without events for long, says it as it opens.
    const stream = await fetch(`${gw.url}/mcp`, { headers: { ...headers, accept: "text/event-stream" } });
    const reader = stream.body!.getReader();
    let opened = "";
    while (!opened.includes("\n\n")) opened += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(opened).toMatch(/^retry: \d+$/m);
  });

  test("the MCP SDK client whose call stream is cut resumes it after the server's retry delay and gets its result", async () => {
    const requests: string[] = [];
    let cutNext = true;
    // The network between client and gateway: the first tool call's stream breaks right after its first event id.
    const lossy: FetchLike = async (input, init) => {
      const response = await fetch(input, init);
      const sent = typeof init?.body === "string" ? init.body : "";
      requests.push(`${init?.method ?? "GET"} ${new Headers(init?.headers).get("last-event-id") ?? ""}`.trim());
      if (!cutNext || !sent.includes('"tools/call"') || !response.body) return response;
      cutNext = false;
      const reader = response.body.getReader();
      let seen = "";
      const broken = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (/^id: /m.test(seen)) {
            await reader.cancel();
            return controller.error(new Error("connection reset"));
          }
          const { value, done } = await reader.read();
          if (done) return controller.close();
          seen += new TextDecoder().decode(value);
          controller.enqueue(value);
        },
      });
      return new Response(broken, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: "resuming", version: "1.0.0" });
    // Left to itself, the client would wait a minute before reconnecting.
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      fetch: lossy,
      reconnectionOptions: { initialReconnectionDelay: 60_000, maxReconnectionDelay: 60_000, reconnectionDelayGrowFactor: 1, maxRetries: 2 },
    });
    await client.connect(transport);
    const started = performance.now();
    const result = await client.callTool({ name: "desk-slow", arguments: { steps: 3, interval_ms: 200 } });
    expect(JSON.stringify(result.content)).toContain("done in 3 steps");
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(requests.some((request) => /^GET \S+\/\d+$/.test(request))).toBe(true);
    await client.close();
  }, 30_000);
});
