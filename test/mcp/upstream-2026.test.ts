import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import { type Mcp2026Server, startMcp2026Server } from "../support/mcp-2026-server";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type ClientView, clientWhen, createMcpClient, executeTool, startMcpGateway, toolContent } from "./support";

let gw: TestGateway;
/** Speaks 2026-07-28 only. */
let desk: Mcp2026Server;
/** Speaks both revisions. */
let bilingual: Mcp2026Server;
/** SDK servers of 2025-11-25, which know nothing of server/discover; the second is the pinned client's, which retries. */
let old: McpHttpServer;
let older: McpHttpServer;
const clients: Record<string, ClientView> = {};

type RevisionView = ClientView & { protocol_version: string; negotiated_protocol_version: string | null };

const connected = async (name: string) => (await clientWhen(gw, clients[name]!.id, (client) => client.state === "connected")) as RevisionView;

/** The MCP SDK's client (2025-11-25) on the gateway's /mcp/{client}, declaring what `capabilities` says. */
async function sdkClient(path: string, capabilities: Record<string, object> = {}): Promise<Client> {
  const client = new Client({ name: "downstream", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`)));
  return client;
}

beforeAll(async () => {
  desk = startMcp2026Server();
  bilingual = startMcp2026Server({ handshakeToo: true });
  old = startMcpHttpServer();
  older = startMcpHttpServer();
  gw = await startMcpGateway({ mcp: { reconnect_initial_delay_ms: 20, reconnect_max_delay_ms: 100, health_check_interval_seconds: 0.1 } });
  const client = async (name: string, url: string, extra: Record<string, unknown> = {}) => (clients[name] = await createMcpClient(gw, { name, connection_type: "http", connection_string: url, tools_to_execute: ["*"], ...extra }));
  await client("desk", desk.url);
  await client("old", old.url);
  await client("pinned_old", bilingual.url, { protocol_version: "2025-11-25" });
  await client("pinned_new", older.url, { protocol_version: "2026-07-28" });
  // The gateway's own /mcp/{client} serves 2026-07-28 too: a second implementation of the wire to speak to.
  await client("loop", `${gw.url}/mcp/desk`);
});
afterAll(async () => {
  await gw.close();
  await desk.stop();
  await bilingual.stop();
  await old.stop();
  await older.stop();
});

describe("an upstream that offers 2026-07-28 is spoken to in that revision", () => {
  test("the connection discovers it with server/discover, without an initialize, and the client's view says so", async () => {
    const view = await connected("desk");
    expect(view).toMatchObject({ protocol_version: "auto", negotiated_protocol_version: "2026-07-28" });
    expect(view.tools.map((tool) => tool.name)).toEqual(["echo", "approve"]);
    expect(desk.handshakes).toBe(0);
    const discover = desk.received.find((request) => request.method === "server/discover")!;
    expect(discover.params._meta).toMatchObject({ "io.modelcontextprotocol/clientInfo": { name: "ai-gateway" }, "io.modelcontextprotocol/clientCapabilities": {} });
  });

  test("tools are listed and called through /mcp/{client}, with the headers the revision mirrors (Mcp-Name, Mcp-Param-*)", async () => {
    await connected("desk");
    const client = await sdkClient("/mcp/desk");
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "desk-2026", version: "2.0.0" });
      expect(client.getInstructions()).toBe("Say please.");
      const result = await client.callTool({ name: "echo", arguments: { text: "hello", region: "Zürich" } });
      expect(result).toMatchObject({ content: [{ type: "text", text: "echo: hello (Zürich)" }] });
    } finally {
      await client.close();
    }
    const call = desk.received.findLast((request) => request.method === "tools/call")!;
    expect(call.headers.get("mcp-name")).toBe("echo");
    expect(call.headers.get("mcp-param-region")).toBe(`=?base64?${Buffer.from("Zürich").toString("base64")}?=`);
  });

  test("POST /v1/mcp/tool/execute calls it too", async () => {
    await connected("desk");
    expect(await toolContent(await executeTool(gw, "desk-echo", { text: "from chat", region: "north" }))).toBe("echo: from chat (north)");
  });

  test("a list change sent on subscriptions/listen reaches the gateway, which lists the tools again", async () => {
    await connected("desk");
    expect(desk.received.some((request) => request.method === "subscriptions/listen" && (request.params.notifications as Record<string, unknown>).toolsListChanged === true)).toBe(true);
    desk.addTool("later");
    const view = await clientWhen(gw, clients.desk!.id, (client) => client.tools.some((tool) => tool.name === "later"));
    expect(view.tools.map((tool) => tool.name)).toEqual(["echo", "approve", "later"]);
  });

  test("an input_required answer is put to the caller that declares elicitation, and the call is sent again with its answer and the server's requestState", async () => {
    await connected("desk");
    const client = await sdkClient("/mcp/desk", { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { ok: true } };
    });
    try {
      const result = await client.callTool({ name: "approve", arguments: {} });
      expect(result).toMatchObject({ content: [{ type: "text", text: 'approval: accept {"ok":true}' }] });
    } finally {
      await client.close();
    }
    expect(asked).toEqual(["Approve the deployment?"]);
    const retry = desk.received.findLast((request) => request.method === "tools/call" && request.params.name === "approve")!;
    expect(retry.params).toMatchObject({ requestState: "round-1", inputResponses: { confirm: { action: "accept", content: { ok: true } } } });
    expect(retry.params._meta["io.modelcontextprotocol/clientCapabilities"]).toHaveProperty("elicitation");
  });

  test("the health check, the revision having no ping, is a server/discover", async () => {
    await connected("desk");
    const discovers = () => desk.received.filter((request) => request.method === "server/discover").length;
    const before = discovers();
    await eventually(async () => discovers(), (count) => count >= before + 2);
    expect(discovers()).toBeGreaterThanOrEqual(before + 2);
    expect(desk.received.map((request) => request.method)).not.toContain("ping");
    expect((await connected("desk")).negotiated_protocol_version).toBe("2026-07-28");
  });

  test("a caller that cannot answer the input gets the server's error, and the connection stays up", async () => {
    await connected("desk");
    const response = await executeTool(gw, "desk-approve");
    expect(await response.text()).toContain("approve needs a client that declares elicitation");
    expect((await connected("desk")).negotiated_protocol_version).toBe("2026-07-28");
  });
});

test("the gateway's own /mcp/{client}, which serves the revision, is spoken to in it: its header checks pass and its list changes arrive", async () => {
  const view = await connected("loop");
  expect(view.negotiated_protocol_version).toBe("2026-07-28");
  expect(await toolContent(await executeTool(gw, "loop-echo", { text: "round trip", region: "Zürich" }))).toBe("echo: round trip (Zürich)");
  desk.addTool("looped");
  await clientWhen(gw, clients.loop!.id, (client) => client.tools.some((tool) => tool.name === "looped"));
});

describe("choosing the revision", () => {
  test("a server that does not know server/discover is spoken to in 2025-11-25, as before", async () => {
    const view = await connected("old");
    expect(view).toMatchObject({ protocol_version: "auto", negotiated_protocol_version: "2025-11-25" });
    expect(await toolContent(await executeTool(gw, "old-get_weather", { city: "Oslo" }))).toBe("Sunny and 21C in Oslo");
  });

  test("a caller's own session with such a server does not ask it again: only the shared connection does, at each connect", async () => {
    await connected("old");
    const discovers = () => old.requestHeaders.filter((headers) => headers.get("mcp-method") === "server/discover").length;
    const before = discovers();
    expect(before).toBeGreaterThan(0);
    const client = await sdkClient("/mcp/old", { elicitation: {} });
    try {
      expect(await client.callTool({ name: "get_weather", arguments: { city: "Bergen" } })).toMatchObject({ content: [{ type: "text", text: "Sunny and 21C in Bergen" }] });
    } finally {
      await client.close();
    }
    expect(discovers()).toBe(before);
  });

  test("protocol_version 2025-11-25 keeps the handshake with a server that offers both", async () => {
    const view = await connected("pinned_old");
    expect(view.negotiated_protocol_version).toBe("2025-11-25");
    expect(await toolContent(await executeTool(gw, "pinned_old-echo", { text: "hi" }))).toBe("echo over the handshake: hi");
    expect(bilingual.received).toEqual([]);
  });

  test("protocol_version 2026-07-28 does not fall back: a server without it fails to connect, saying why", async () => {
    const view = (await clientWhen(gw, clients.pinned_new!.id, (client) => client.state === "error")) as RevisionView;
    expect(view.last_error).toContain("does not offer MCP 2026-07-28");
    expect(view.negotiated_protocol_version).toBeNull();
  });

  test("the setting is checked: 2026-07-28 needs an http client; an unknown value is refused naming the field", async () => {
    const sse = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "sse_new", connection_type: "sse", connection_string: old.url, protocol_version: "2026-07-28" } });
    expect(sse.status).toBe(400);
    expect(await sse.text()).toContain("protocol_version");
    const unknown = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "odd", connection_type: "http", connection_string: old.url, protocol_version: "2099-01-01" } });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("protocol_version");
  });
});
