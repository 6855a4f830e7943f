import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { describeEvent, gatewayAgentUrl, gatewayClient, registerAgent, taskIdOfEvent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent, TRACE_EXTENSION } from "../support/a2a-sdk-agent";
import { startGateway, type TestGateway } from "../support/gateway";

interface GatewayCard {
  name: string;
  supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
  securitySchemes?: Record<string, { apiKeySecurityScheme?: Record<string, string> }>;
  capabilities: { extensions: Array<{ uri: string }> };
}

let gw: TestGateway;
let agent: SdkAgent;
let jsonRpcOnly: SdkAgent;
let restOnly: SdkAgent;

beforeAll(async () => {
  [agent, jsonRpcOnly, restOnly] = await Promise.all([startSdkAgent(), startSdkAgent({ bindings: ["JSONRPC"] }), startSdkAgent({ bindings: ["HTTP+JSON"] })]);
  gw = await startGateway();
  await registerAgent(gw, "echo", agent.baseUrl, { headers: { authorization: "Bearer upstream-agent-secret" } });
  await registerAgent(gw, "rpc-only", jsonRpcOnly.baseUrl);
  await registerAgent(gw, "rest-only", restOnly.baseUrl);
});
afterAll(async () => {
  await gw.close();
  await Promise.all([agent.stop(), jsonRpcOnly.stop(), restOnly.stop()]);
});

const textOf = (result: Awaited<ReturnType<Client["sendMessage"]>>) =>
  "artifacts" in result ? result.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === "text" ? part.content.value : ""))).join("") : "";

async function collect(stream: AsyncGenerator<Parameters<typeof describeEvent>[0]>) {
  const events = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("the agent card the gateway serves", () => {
  test("lists the gateway's own endpoints for both bindings, never the upstream's, and no security scheme where keys are optional", async () => {
    const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as GatewayCard;
    expect(card.name).toBe("Echo agent");
    expect(card.supportedInterfaces).toEqual([
      { url: `${gatewayAgentUrl(gw, "echo")}/json-rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${gatewayAgentUrl(gw, "echo")}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ]);
    expect(JSON.stringify(card)).not.toContain(agent.baseUrl);
    expect(card.securitySchemes).toBeUndefined();
    expect("securityRequirements" in card).toBe(false);
    expect(card.capabilities.extensions[0]?.uri).toBe(TRACE_EXTENSION);
  });

  test("puts the upstream's preferred binding first", async () => {
    const card = (await (await fetch(`${gatewayAgentUrl(gw, "rest-only")}/.well-known/agent-card.json`)).json()) as GatewayCard;
    expect(card.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(["HTTP+JSON", "JSONRPC"]);
  });
});

for (const transport of ["JSONRPC", "HTTP+JSON"] as const) {
  describe(`the SDK client over the gateway's ${transport} binding`, () => {
    test("send message: the agent's completed task comes back, and the upstream got the agent's configured headers, not the caller's", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const before = agent.requests.length;
      const result = await client.sendMessage(userMessage("echo hello gateway"));
      expect("status" in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(result)).toBe("echo: hello gateway");
      const upstream = agent.requests.slice(before).find((request) => request.method === "POST")!;
      expect(upstream.path).toBe(transport === "JSONRPC" ? "/a2a/jsonrpc" : "/a2a/rest/message:send");
      expect(upstream.headers.get("authorization")).toBe("Bearer upstream-agent-secret");
    });

    test("a plain message reply (no task) comes back as a message", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const result = await client.sendMessage(userMessage("reply just words"));
      expect("parts" in result && result.parts[0]?.content).toEqual({ $case: "text", value: "just words" });
    });

    test("streaming send: every event arrives in order, ending in completed", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const events = await collect(client.sendMessageStream(userMessage("echo streamed")));
      expect(events.map(describeEvent)).toEqual(["task:submitted", "status:working", "artifact:echo: streamed", "status:completed"]);
    });

    test("get task and list tasks find the task the stream created", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const events = await collect(client.sendMessageStream(userMessage("echo find me")));
      const taskId = taskIdOfEvent(events[0]!)!;
      const task = await client.getTask({ tenant: "", id: taskId, historyLength: 1 });
      expect(task.id).toBe(taskId);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const listed = await client.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined });
      expect(listed.tasks.map((entry) => entry.id)).toEqual([taskId]);
    });

    test("get task for an unknown id raises the SDK's TaskNotFoundError", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      await expect(client.getTask({ tenant: "", id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    test("cancel task stops a running task", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const held = agent.nextHeldTask();
      const stream = client.sendMessageStream(userMessage("hold"));
      const first = await stream.next();
      const taskId = await held;
      expect(taskIdOfEvent(first.value!)).toBe(taskId);
      const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await stream.return(undefined);
    });

    test("push notification configs: create, get, list and delete", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const held = agent.nextHeldTask();
      const stream = client.sendMessageStream(userMessage("hold"));
      await stream.next();
      const taskId = await held;
      const config = { tenant: "", id: "hook-1", taskId, url: "https://receiver.example.com/a2a", token: "t0k", authentication: undefined };
      const created = await client.createTaskPushNotificationConfig(config);
      expect(created).toMatchObject({ id: "hook-1", taskId, url: config.url });
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId, id: "hook-1" })).toMatchObject({ url: config.url, token: "t0k" });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs.map((entry) => entry.id)).toEqual(["hook-1"]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "hook-1" });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs).toEqual([]);
      agent.release(taskId);
      await stream.return(undefined);
    });

    test("the extensions header reaches the agent", async () => {
      const client = await gatewayClient(gw, "echo", { transport });
      const before = agent.requests.length;
      const result = await client.sendMessage(userMessage("echo with trace"), { serviceParameters: { "A2A-Extensions": TRACE_EXTENSION } });
      expect(textOf(result)).toBe("echo: with trace");
      expect(agent.requests.slice(before).find((request) => request.method === "POST")!.headers.get("a2a-extensions")).toBe(TRACE_EXTENSION);
    });
  });
}

test("the extensions the agent activated come back in the response's A2A-Extensions header", async () => {
  const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/rest/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Extensions": TRACE_EXTENSION },
    body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "echo raw" }] } }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("a2a-extensions")).toBe(TRACE_EXTENSION);
});

describe("between bindings", () => {
  test("a REST caller reaches an agent that speaks only JSON-RPC, streaming included", async () => {
    const client = await gatewayClient(gw, "rpc-only", { transport: "HTTP+JSON" });
    const before = jsonRpcOnly.requests.length;
    const events = await collect(client.sendMessageStream(userMessage("echo across")));
    expect(events.map(describeEvent)).toEqual(["task:submitted", "status:working", "artifact:echo: across", "status:completed"]);
    expect(jsonRpcOnly.requests.slice(before).map((request) => request.path)).toContain("/a2a/jsonrpc");
    const task = await client.getTask({ tenant: "", id: taskIdOfEvent(events[0]!)! });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("a JSON-RPC caller reaches an agent that speaks only HTTP+JSON, errors included", async () => {
    const client = await gatewayClient(gw, "rest-only", { transport: "JSONRPC" });
    const result = await client.sendMessage(userMessage("echo over rest"));
    expect(textOf(result)).toBe("echo: over rest");
    expect(restOnly.requests.at(-1)!.path).toBe("/a2a/rest/message:send");
    await expect(client.getTask({ tenant: "", id: "missing" })).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
