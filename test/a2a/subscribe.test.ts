import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { A2AError } from "@a2a-js/sdk/errors";
import { describeEvent, gatewayAgentUrl, gatewayClient, registerAgent, taskIdOfEvent, userMessage } from "../support/a2a-client";
import { type RawAgent, startRawAgent } from "../support/a2a-raw-agent";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage, sseEvents, stateOf } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";

let gw: TestGateway;
let agent: SdkAgent;
let raw: RawAgent;

beforeAll(async () => {
  agent = await startSdkAgent();
  raw = startRawAgent();
  gw = await startGateway();
  await registerAgent(gw, "echo", agent.baseUrl);
  await registerAgent(gw, "raw", raw.baseUrl);
});
afterAll(async () => {
  await gw.close();
  await agent.stop();
  await raw.stop();
});

const subscribeUrl = (name: string, taskId: string) => `${gatewayAgentUrl(gw, name)}/rest/tasks/${encodeURIComponent(taskId)}:subscribe`;

/** Starts a `hold` task through the gateway and returns its id once the agent is working on it. */
async function startHeldTask(): Promise<{ taskId: string; stream: AsyncGenerator<unknown> }> {
  const client = await gatewayClient(gw, "echo", { transport: "HTTP+JSON" });
  const held = agent.nextHeldTask();
  const stream = client.sendMessageStream(userMessage("hold on"));
  await stream.next();
  return { taskId: await held, stream };
}

describe("GET /agents/a2a/{name}/rest/tasks/{id}:subscribe", () => {
  test("answers text/event-stream whose data events are each one A2A stream event, the current Task first", async () => {
    const { taskId, stream } = await startHeldTask();
    const response = await fetch(subscribeUrl("echo", taskId));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const events = sseEvents(response);
    const first = (await events.next()).value!;
    expect(stateOf(first)).toBe("task:working");
    expect((first.data.task as { id: string }).id).toBe(taskId);
    agent.release(taskId);
    const rest = [];
    for await (const event of events) rest.push(event);
    expect(rest.map(stateOf)).toEqual(["artifact", "status:completed"]);
    expect(rest.every((event) => event.event === undefined)).toBe(true);
    await stream.return(undefined);
  });

  test("a subscriber that reconnects gets the task's current state first, then the rest of the task", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "HTTP+JSON" });
    const held = agent.nextHeldTask();
    const firstConnection = client.sendMessageStream(userMessage("hold tight"));
    expect(describeEvent((await firstConnection.next()).value!)).toBe("task:submitted");
    const taskId = await held;
    await firstConnection.return(undefined);

    const reconnected = client.resubscribeTask({ tenant: "", id: taskId });
    const opening = (await reconnected.next()).value!;
    expect(describeEvent(opening)).toBe("task:working");
    expect(taskIdOfEvent(opening)).toBe(taskId);
    agent.release(taskId);
    const rest = [];
    for await (const event of reconnected) rest.push(describeEvent(event));
    expect(rest).toEqual(["artifact:echo: tight", "status:completed"]);
  });

  test("the POST form the SDK client uses answers the same stream", async () => {
    const { taskId, stream } = await startHeldTask();
    const response = await fetch(subscribeUrl("echo", taskId), { method: "POST" });
    const events = sseEvents(response);
    expect(stateOf((await events.next()).value!)).toBe("task:working");
    agent.release(taskId);
    await events.return(undefined);
    await stream.return(undefined);
  });

  test("when the agent does not open with the Task, the gateway sends its own record of the task first", async () => {
    const opened = raw.nextStreamOpened();
    const started = await fetch(`${gatewayAgentUrl(gw, "raw")}/rest/message:stream`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(restMessage("hi")) });
    const startEvents = sseEvents(started);
    const task = (await startEvents.next()).value!.data.task as { id: string };
    await opened;
    raw.dropStreams();
    await startEvents.return(undefined);

    const events = [];
    for await (const event of sseEvents(await fetch(subscribeUrl("raw", task.id)))) events.push(event);
    expect(events.map(stateOf)).toEqual(["task:working", "status:completed"]);
    expect(events[0]!.data.task).toEqual({ id: task.id, contextId: "ctx-raw", status: { state: "TASK_STATE_WORKING" } });
  });
});

describe("failures", () => {
  test("an agent whose connection breaks mid-stream: the failure arrives inside the stream as an A2A error event", async () => {
    const opened = raw.nextStreamOpened();
    const response = await fetch(`${gatewayAgentUrl(gw, "raw")}/rest/message:stream`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(restMessage("hi")) });
    expect(response.status).toBe(200);
    const events = sseEvents(response);
    expect(stateOf((await events.next()).value!)).toBe("task:working");
    await opened;
    raw.dropStreams();
    const failure = (await events.next()).value!;
    expect(failure.event).toBe("error");
    expect(failure.data).toMatchObject({ error: { code: 502, status: "UNAVAILABLE", message: expect.stringContaining("broke off") } });
    expect((await events.next()).done).toBe(true);
  });

  test("the SDK client sees a mid-stream failure as an A2AError thrown from its stream, on both bindings", async () => {
    for (const transport of ["HTTP+JSON", "JSONRPC"] as const) {
      const client = await gatewayClient(gw, "raw", { transport });
      const opened = raw.nextStreamOpened();
      const stream = client.sendMessageStream(userMessage("hi"));
      expect(describeEvent((await stream.next()).value!)).toBe("task:working");
      await opened;
      raw.dropStreams();
      const error = await stream.next().then(
        () => undefined,
        (thrown: Error) => thrown,
      );
      expect(error?.message).toContain("broke off");
      if (transport === "HTTP+JSON") expect(error).toBeInstanceOf(A2AError);
    }
  });

  test("an agent that fails its task: the failed status is delivered and recorded", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const events = [];
    for await (const event of client.sendMessageStream(userMessage("fail now"))) events.push(event);
    expect(events.map(describeEvent)).toEqual(["task:submitted", "status:working", "status:failed"]);
    const history = (await (await gw.admin(`/api/agents/history?task_id=${taskIdOfEvent(events[0]!)}`)).json()) as { tasks: unknown[] };
    expect(history.tasks[0]).toMatchObject({ state: "failed", live: false });
  });

  test("errors before streaming use the A2A error envelope: an unknown task is a 404 NOT_FOUND", async () => {
    const response = await fetch(subscribeUrl("echo", "no-such-task"));
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).not.toContain("event-stream");
    expect(await response.json()).toEqual({
      error: { code: 404, status: "NOT_FOUND", message: "Task not found: no-such-task", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }] },
    });
  });

  test("an agent that cannot be reached is a 502 UNAVAILABLE envelope, not a stream", async () => {
    const gone = await startSdkAgent();
    await registerAgent(gw, "gone", gone.baseUrl);
    await gone.stop();
    const response = await fetch(subscribeUrl("gone", "any-task"));
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 502, status: "UNAVAILABLE", details: [{ reason: "PROVIDER_UNREACHABLE", domain: "gateway" }] } });
  });

  test("an unknown agent is an empty 404 on every route", async () => {
    const urls = [`${gatewayAgentUrl(gw, "nobody")}/.well-known/agent-card.json`, subscribeUrl("nobody", "t1")];
    for (const url of urls) {
      const response = await fetch(url);
      expect({ url, status: response.status, body: await response.text() }).toEqual({ url, status: 404, body: "" });
    }
    const rpc = await fetch(`${gatewayAgentUrl(gw, "nobody")}/json-rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }) });
    expect({ status: rpc.status, body: await rpc.text() }).toEqual({ status: 404, body: "" });
  });

  test("a disabled agent is an empty 404 until it is enabled again", async () => {
    const sleeper = await startSdkAgent();
    await registerAgent(gw, "sleeper", sleeper.baseUrl, { enabled: false });
    const card = `${gatewayAgentUrl(gw, "sleeper")}/.well-known/agent-card.json`;
    const disabled = await fetch(card);
    expect({ status: disabled.status, body: await disabled.text() }).toEqual({ status: 404, body: "" });
    const subscribe = await fetch(subscribeUrl("sleeper", "t1"));
    expect({ status: subscribe.status, body: await subscribe.text() }).toEqual({ status: 404, body: "" });
    await gw.admin("/api/agents/sleeper", { method: "PUT", json: { url: sleeper.baseUrl, enabled: true } });
    expect((await fetch(card)).status).toBe(200);
    await sleeper.stop();
  });
});
