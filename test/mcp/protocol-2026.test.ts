import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import { type McpConformanceServer, startMcpConformanceServer } from "../support/mcp-conformance-server";
import { type McpSessionServer, startMcpSessionServer } from "../support/mcp-session-server";
import { createMcpClient, createVirtualKey, startMcpGateway } from "./support";

let gw: TestGateway;
let upstream: McpConformanceServer;
let desk: McpSessionServer;

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "raw-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface RpcReply {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: Record<string, unknown> };
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
}

interface Sent {
  path?: string;
  params?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  id?: number;
}

/** A 2026-07-28 request as the revision's clients send it: `_meta` in the body, mirrored in the headers. */
function send(method: string, { path = "/mcp/everything", params = {}, meta = {}, headers = {}, id = 1 }: Sent = {}): Promise<Response> {
  const name = params.name ?? params.uri;
  return fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...META, ...meta } } }),
  });
}

/** The JSON-RPC messages of an SSE answer, in order. */
async function sseMessages(response: Response): Promise<RpcReply[]> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)) as RpcReply);
}

/** Reads SSE messages from an open stream until `enough` says so. */
async function readUntil(response: Response, enough: (messages: RpcReply[]) => boolean): Promise<RpcReply[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: RpcReply[] = [];
  let buffered = "";
  while (!enough(messages)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)) as RpcReply);
  }
  await reader.cancel();
  return messages;
}

beforeAll(async () => {
  upstream = startMcpConformanceServer();
  desk = startMcpSessionServer();
  // A held call nobody answers is cancelled after a second, so the test of it waits no longer.
  gw = await startMcpGateway({ mcp: { input_required_timeout_seconds: 1 } });
  await createMcpClient(gw, { name: "everything", connection_type: "http", connection_string: upstream.url, tools_to_execute: ["*"] });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: desk.url, tools_to_execute: ["*"] });
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
  await desk.stop();
});

describe("the 2026-07-28 revision on /mcp/{client}", () => {
  test("server/discover names the revisions served, the upstream's identity and capabilities, with no session", async () => {
    const response = await send("server/discover");
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const { result } = (await response.json()) as RpcReply;
    expect(result).toMatchObject({
      resultType: "complete",
      supportedVersions: expect.arrayContaining([VERSION, "2025-11-25"]),
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true } },
      instructions: "Every feature the MCP conformance suite checks of a server.",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "conformance-server", version: "1.0.0" } },
      cacheScope: "private",
    });
  });

  test("calls a tool and lists tools without an initialize, the lists with caching hints for this caller", async () => {
    const call = (await (await send("tools/call", { params: { name: "test_simple_text", arguments: {} } })).json()) as RpcReply;
    expect(call.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "A plain line of text from the conformance server." }] });
    const list = (await (await send("tools/list", { id: 2 })).json()) as RpcReply;
    expect(list).toMatchObject({ id: 2, result: { resultType: "complete", ttlMs: 60_000, cacheScope: "private" } });
    expect((list.result!.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain("test_simple_text");
    const read = (await (await send("resources/read", { params: { uri: "test://static-text" } })).json()) as RpcReply;
    expect(read.result).toMatchObject({ ttlMs: 0, cacheScope: "private", contents: [{ text: "The text of a resource that never changes." }] });
  });

  test("on /mcp the names carry the client's prefix, as for the handshake's clients", async () => {
    const list = (await (await send("tools/list", { path: "/mcp" })).json()) as RpcReply;
    expect((list.result!.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain("everything-test_simple_text");
  });

  test("a version the headers contradict is -32020, a version not served -32022 with the versions served, both HTTP 400", async () => {
    const mismatch = await send("tools/list", { meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }, id: 7 });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ id: 7, error: { code: -32020 } });
    const unknown = await send("tools/list", { meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }, headers: { "mcp-protocol-version": "2099-01-01" }, id: 8 });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ id: 8, error: { code: -32022, data: { requested: "2099-01-01", supported: expect.arrayContaining([VERSION]) } } });
    const wrongName = await send("tools/call", { params: { name: "test_simple_text", arguments: {} }, headers: { "mcp-name": "test_error_handling" } });
    expect(wrongName.status).toBe(400);
    expect(((await wrongName.json()) as RpcReply).error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Name") });
  });

  test("a tool argument its schema mirrors in a header (x-mcp-header) must come with that header, the same value, Base64 or plain", async () => {
    const call = (headers: Record<string, string>) => send("tools/call", { params: { name: "test_header_param", arguments: { region: "Zürich" } }, headers });
    const encoded = `=?base64?${Buffer.from("Zürich").toString("base64")}?=`;
    expect(((await (await call({ "mcp-param-region": encoded })).json()) as RpcReply).result).toMatchObject({ content: [{ text: "Region: Zürich" }] });
    const wrong: Record<string, string>[] = [{}, { "mcp-param-region": "Basel" }, { "mcp-param-region": "=?base64?WnVyaWNo!?=" }];
    for (const headers of wrong) {
      const refused = await call(headers);
      expect({ status: refused.status, code: ((await refused.json()) as RpcReply).error?.code }).toEqual({ status: 400, code: -32020 });
    }
  });

  test("a request without the client's capabilities in _meta is -32602 naming the field", async () => {
    const response = await send("tools/list", { meta: { "io.modelcontextprotocol/clientCapabilities": undefined } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as RpcReply).error).toMatchObject({ code: -32602, message: expect.stringContaining("io.modelcontextprotocol/clientCapabilities") });
  });

  test("the handshake's methods are not found in this revision (HTTP 404), and GET has no stream (405)", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const response = await send(method);
      expect({ method, status: response.status, code: ((await response.json()) as RpcReply).error?.code }).toEqual({ method, status: 404, code: -32601 });
    }
    const get = await fetch(`${gw.url}/mcp/everything`, { headers: { accept: "text/event-stream", "mcp-protocol-version": VERSION } });
    expect(get.status).toBe(405);
  });

  test("progress comes on the call's own SSE stream before its result; log messages only at the level the request asked for", async () => {
    const progress = await send("tools/call", { params: { name: "test_tool_with_progress", arguments: {} }, meta: { progressToken: "p1" } });
    expect(progress.headers.get("content-type")).toContain("text/event-stream");
    const messages = await sseMessages(progress);
    expect(messages.map((message) => message.method ?? "result")).toEqual(["notifications/progress", "notifications/progress", "notifications/progress", "result"]);
    expect(messages[2]!.params).toMatchObject({ progressToken: "p1", progress: 100, total: 100 });

    const logged = await sseMessages(await send("tools/call", { params: { name: "test_tool_with_logging", arguments: {} }, meta: { "io.modelcontextprotocol/logLevel": "info" } }));
    expect(logged.filter((message) => message.method === "notifications/message").map((message) => message.params?.data)).toEqual(["Started the work", "Halfway through the work", "Finished the work"]);
    const quiet = await sseMessages(await send("tools/call", { params: { name: "test_tool_with_logging", arguments: {} }, meta: { "io.modelcontextprotocol/logLevel": "error" } }));
    expect(quiet.map((message) => message.method ?? "result")).toEqual(["result"]);
  });

  test("the caller's own _meta goes upstream without the revision's keys; closing the call's stream cancels the call upstream", async () => {
    const stream = await send("tools/call", { path: "/mcp/desk", params: { name: "slow", arguments: { steps: 50, interval_ms: 40, label: "stateless-cancel" } }, meta: { progressToken: 9, "example.com/trace": "t-2026" } });
    await readUntil(stream, (received) => received.some((message) => message.method === "notifications/progress"));
    expect(await eventually(async () => desk.cancelled, (labels) => labels.includes("stateless-cancel"))).toContain("stateless-cancel");
    const meta = desk.metas.at(-1)!;
    expect(meta["example.com/trace"]).toBe("t-2026");
    expect(Object.keys(meta).filter((key) => key.startsWith("io.modelcontextprotocol/"))).toEqual([]);
  });

  test("subscriptions/listen acknowledges what it will carry, then brings the list changes asked for, tagged with its id", async () => {
    const stream = await send("subscriptions/listen", { params: { notifications: { toolsListChanged: true, completionsChanged: true } }, id: 41 });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const messages = readUntil(stream, (received) => received.some((message) => message.method === "notifications/tools/list_changed"));
    await send("tools/call", { params: { name: "test_trigger_prompt_change", arguments: {} } });
    await send("tools/call", { params: { name: "test_trigger_tool_change", arguments: {} } });
    const received = await messages;
    expect(received[0]).toEqual({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true }, _meta: { "io.modelcontextprotocol/subscriptionId": 41 } } });
    // Not the prompt change, which it did not ask for.
    expect(received.slice(1).map((message) => message.method)).toEqual(["notifications/tools/list_changed"]);
    expect(received[1]!.params?._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": 41 });
  });

  test("subscriptions/listen subscribes upstream to the resources it names and brings their updates", async () => {
    const stream = await send("subscriptions/listen", { params: { notifications: { resourceSubscriptions: ["test://watched-resource"] } }, id: 42 });
    const messages = readUntil(stream, (received) => received.some((message) => message.method === "notifications/resources/updated"));
    await send("tools/call", { params: { name: "test_trigger_resource_update", arguments: {} } });
    const received = await messages;
    expect(received[0]!.params).toMatchObject({ notifications: { resourceSubscriptions: ["test://watched-resource"] } });
    expect(received.slice(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://watched-resource", _meta: { "io.modelcontextprotocol/subscriptionId": 42 } } },
    ]);
  });

  test("is authenticated like the handshake's requests: a virtual key's mcp_configs decide what it lists", async () => {
    const key = await createVirtualKey(gw, "stateless-reader", { mcp_configs: [{ mcp_client_name: "everything", tools_to_execute: ["test_simple_text"] }] });
    const list = (await (await send("tools/list", { headers: { authorization: `Bearer ${key.value}` } })).json()) as RpcReply;
    expect((list.result!.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(["test_simple_text"]);
  });
});

/** A caller's `_meta` declaring the input it can give when asked. */
const declaring = (capabilities: Record<string, object>) => ({ "io.modelcontextprotocol/clientCapabilities": capabilities });

interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
}

/** Sends a request and reads its JSON-RPC reply, with its HTTP status. */
async function exchange(method: string, sent: Sent): Promise<RpcReply & { status: number }> {
  const response = await send(method, sent);
  return { status: response.status, ...((await response.json()) as RpcReply) };
}

describe("multi round-trip requests: an upstream asking its caller during a call", () => {
  const elicitation = { name: "test_input_required_result_elicitation", arguments: {} };

  test("answers input_required with the request and a requestState; the retry with the answer brings the result, and the state is good once", async () => {
    const first = await exchange("tools/call", { params: elicitation, meta: declaring({ elicitation: {} }) });
    const asked = first.result as unknown as InputRequired;
    expect(asked).toEqual({ resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create", params: expect.any(Object) } }, requestState: expect.any(String) });
    expect(asked.inputRequests.user_name!.params).toMatchObject({ message: "What is your name?", requestedSchema: { properties: { name: { type: "string" } } } });
    // The key the upstream named goes no further than the gateway.
    expect(asked.inputRequests.user_name!.params._meta).toBeUndefined();

    const retry = { ...elicitation, inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } }, requestState: asked.requestState };
    const done = await exchange("tools/call", { params: retry, meta: declaring({ elicitation: {} }), id: 2 });
    expect(done).toMatchObject({ status: 200, id: 2, result: { resultType: "complete", content: [{ type: "text", text: "Hello, Ada!" }] } });
    const again = await exchange("tools/call", { params: retry, meta: declaring({ elicitation: {} }), id: 3 });
    expect(again).toMatchObject({ status: 400, id: 3, error: { code: -32602, message: expect.stringContaining("names no call waiting") } });
  });

  test("a tampered state, or one another caller presents, is refused with -32602 while the call waits on for its own caller", async () => {
    const key = await createVirtualKey(gw, "asking-caller", { mcp_configs: [{ mcp_client_name: "everything", tools_to_execute: ["*"] }] });
    const own = { authorization: `Bearer ${key.value}` };
    const first = await exchange("tools/call", { params: elicitation, meta: declaring({ elicitation: {} }), headers: own });
    const { requestState } = first.result as unknown as InputRequired;
    const answer = { user_name: { action: "accept", content: { name: "Grace" } } };
    const tampered = `${requestState.slice(0, 10)}${requestState[10] === "A" ? "B" : "A"}${requestState.slice(11)}`;
    for (const [state, headers] of [[tampered, own], [requestState, {}]] as const) {
      const refused = await exchange("tools/call", { params: { ...elicitation, inputResponses: answer, requestState: state }, meta: declaring({ elicitation: {} }), headers });
      expect(refused).toMatchObject({ status: 400, error: { code: -32602, message: expect.stringContaining("does not verify") } });
    }
    const done = await exchange("tools/call", { params: { ...elicitation, inputResponses: answer, requestState }, meta: declaring({ elicitation: {} }), headers: own });
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ text: "Hello, Grace!" }] });
  });

  test("the upstream's session declares only what the caller declared; a caller that declared nothing gets the upstream's -32021 as HTTP 400", async () => {
    const refused = await exchange("tools/call", { params: { name: "test_missing_capability", arguments: {} } });
    expect(refused).toMatchObject({ status: 400, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
    const asked = await exchange("tools/call", { params: { name: "test_input_required_result_capabilities", arguments: {} }, meta: declaring({ sampling: {} }) });
    expect(Object.values((asked.result as unknown as InputRequired).inputRequests).map((request) => request.method)).toEqual(["sampling/createMessage"]);
  });

  test("a call nobody answers is cancelled upstream once input_required_timeout_seconds pass, and its state is refused after", async () => {
    const params = { name: "ask_model", arguments: { question: "Anyone there?", label: "never-answered" } };
    const first = await exchange("tools/call", { path: "/mcp/desk", params, meta: declaring({ sampling: {} }) });
    const { requestState, inputRequests } = first.result as unknown as InputRequired;
    expect(Object.keys(inputRequests)).toEqual(["sampling-1"]);
    expect(desk.sessionCapabilities.at(-1)).toEqual({ sampling: {} });
    expect(await eventually(async () => desk.cancelled, (labels) => labels.includes("never-answered"), 5_000)).toContain("never-answered");
    const answer = { "sampling-1": { role: "assistant", content: { type: "text", text: "Yes" }, model: "m", stopReason: "endTurn" } };
    const late = await exchange("tools/call", { path: "/mcp/desk", params: { ...params, inputResponses: answer, requestState }, meta: declaring({ sampling: {} }) });
    expect(late).toMatchObject({ status: 400, error: { code: -32602 } });
  });
});

describe("both revisions on one endpoint", () => {
  test("an initialize still opens a 2025-11-25 session for the MCP SDK's client, beside stateless requests", async () => {
    const client = new Client({ name: "handshake-client", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/everything`));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeString();
      expect(transport.protocolVersion).toBe("2025-11-25");
      const stateless = (await (await send("tools/call", { params: { name: "test_simple_text", arguments: {} } })).json()) as RpcReply;
      const result = await client.callTool({ name: "test_simple_text", arguments: {} });
      expect(result.content).toEqual(stateless.result!.content as typeof result.content);
      expect(result).not.toHaveProperty("resultType");
    } finally {
      await client.close();
    }
  });
});

describe("when the gateway drains", () => {
  test("an open subscriptions/listen stream ends with its result at once, instead of holding the drain to its grace period", async () => {
    const stream = await send("subscriptions/listen", { path: "/mcp", params: { notifications: { toolsListChanged: true } }, id: 43 });
    let drained: Promise<void> | undefined;
    // The drain (SIGTERM's first step) starts once the acknowledgement has come; the stream is read on to its end.
    const messages = await readUntil(stream, (received) => {
      if (received.length > 0) drained ??= gw.gateway.drain(60_000);
      return received.some((message) => message.id === 43);
    });
    expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 43, result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 43 } } });
    await drained;
  });
});
