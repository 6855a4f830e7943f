import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gatewayAgentUrl, registerAgent } from "../support/a2a-client";
import { type RawAgent, startRawAgent } from "../support/a2a-raw-agent";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage, sseEvents, stateOf } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";

let gw: TestGateway;
let agent: SdkAgent;
let restOnly: SdkAgent;
let raw: RawAgent;

beforeAll(async () => {
  [agent, restOnly] = await Promise.all([startSdkAgent(), startSdkAgent({ bindings: ["HTTP+JSON"] })]);
  raw = startRawAgent();
  gw = await startGateway();
  await registerAgent(gw, "echo", agent.baseUrl);
  await registerAgent(gw, "rest-only", restOnly.baseUrl);
  await registerAgent(gw, "raw", raw.baseUrl);
});
afterAll(async () => {
  await gw.close();
  await Promise.all([agent.stop(), restOnly.stop(), raw.stop()]);
});

const rpc = (name: string, body: unknown) =>
  fetch(`${gatewayAgentUrl(gw, name)}/json-rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

describe("POST /agents/a2a/{name}/json-rpc", () => {
  test("each event of a streamed call is a JSON-RPC response to the caller's own id", async () => {
    const response = await rpc("echo", { jsonrpc: "2.0", id: "call-42", method: "SendStreamingMessage", params: restMessage("echo ids") });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const events = [];
    for await (const event of sseEvents(response)) events.push(event.data);
    expect(events.length).toBe(4);
    // Bun's toMatchObject writes asymmetric matchers into the object it checks: match copies.
    for (const event of events) expect(structuredClone(event)).toMatchObject({ jsonrpc: "2.0", id: "call-42", result: expect.any(Object) });
    expect((events.at(-1)!.result as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  test("a body that is not JSON is a parse error (-32700)", async () => {
    expect(await (await rpc("echo", "{not json")).json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  test("a request without a method, or a batch, is an invalid request (-32600), answered to its id", async () => {
    expect(await (await rpc("echo", { jsonrpc: "2.0", id: 9 })).json()).toMatchObject({ id: 9, error: { code: -32600 } });
    expect(await (await rpc("echo", [{ jsonrpc: "2.0", id: 1, method: "GetTask" }])).json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test("params that are not an object are invalid params (-32602)", async () => {
    expect(await (await rpc("echo", { jsonrpc: "2.0", id: 5, method: "GetTask", params: ["t1"] })).json()).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  test("an extension method goes to the agent as it is; an agent without JSON-RPC cannot take one", async () => {
    const forwarded = await (await rpc("echo", { jsonrpc: "2.0", id: 6, method: "example.ext/ping", params: {} })).json();
    expect(forwarded).toMatchObject({ id: 6, error: { code: -32601 } });
    expect(agent.requests.at(-1)!.path).toBe("/a2a/jsonrpc");
    const refused = await (await rpc("rest-only", { jsonrpc: "2.0", id: 7, method: "example.ext/ping", params: {} })).json();
    expect(refused).toMatchObject({ id: 7, error: { code: -32601, message: expect.stringContaining("example.ext/ping") } });
  });
});

describe("the HTTP+JSON binding under /agents/a2a/{name}/rest/", () => {
  const rest = (path: string, init: RequestInit = {}) => fetch(`${gatewayAgentUrl(gw, "echo")}/rest${path}`, init);

  test("a path with no A2A operation is a 404 in the A2A error envelope", async () => {
    const response = await rest("/tasks/abc:pause", { method: "POST" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND", details: [{ reason: "CALLER_ROUTE_NOT_FOUND" }] } });
  });

  test("a body that is not JSON, or not JSON at all by its content type, is refused before the agent is called", async () => {
    const before = agent.requests.length;
    const broken = await rest("/message:send", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT", details: [{ reason: "INVALID_PARAMS" }] } });
    const wrongType = await rest("/message:send", { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" });
    expect(await wrongType.json()).toMatchObject({ error: { code: 400, details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] } });
    expect(agent.requests.length).toBe(before);
  });

  test("typed query parameters are checked: historyLength must be an integer", async () => {
    const response = await rest("/tasks/t1?historyLength=lots");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: "historyLength must be an integer" } });
  });

  test("a task id with reserved characters travels percent-encoded to the agent", async () => {
    const response = await rest(`/tasks/${encodeURIComponent("a/b:c")}`);
    expect(response.status).toBe(404);
    expect(agent.requests.at(-1)!.path).toBe(`/a2a/rest/tasks/${encodeURIComponent("a/b:c")}`);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe("Task not found: a/b:c");
  });
});

test("a caller that leaves a stream stops the agent's stream", async () => {
  const opened = raw.nextStreamOpened();
  const cancelled = raw.nextStreamCancelled();
  const response = await fetch(`${gatewayAgentUrl(gw, "raw")}/rest/message:stream`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(restMessage("hi")) });
  const events = sseEvents(response);
  expect(stateOf((await events.next()).value!)).toBe("task:working");
  await opened;
  await events.return(undefined);
  await cancelled;
});
