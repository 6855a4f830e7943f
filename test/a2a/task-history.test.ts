import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { describeEvent, gatewayAgentUrl, gatewayClient, registerAgent, taskIdOfEvent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { sseEvents, stateOf } from "../support/a2a-sse";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";

interface TaskView {
  agent: string;
  task_id: string;
  context_id: string | null;
  state: string;
  live: boolean;
  virtual_key_id: string | null;
  status: { state: string; message?: unknown };
  transitions: Array<{ state: string; at: string }>;
  created_at: string;
  updated_at: string;
}

let gw: TestGateway;
let agent: SdkAgent;

beforeAll(async () => {
  agent = await startSdkAgent();
  gw = await startGateway();
  await registerAgent(gw, "echo", agent.baseUrl);
});
afterAll(async () => {
  await gw.close();
  await agent.stop();
});

async function history(query = "", on: TestGateway = gw): Promise<{ tasks: TaskView[]; count: number; total_count: number }> {
  const response = await on.admin(`/api/agents/history${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { tasks: TaskView[]; count: number; total_count: number };
}

async function streamToEnd(text: string, taskId = "", contextId = "") {
  const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
  const events = [];
  for await (const event of client.sendMessageStream(userMessage(text, taskId, contextId))) events.push(event);
  return events;
}

const statesOf = (task: TaskView) => task.transitions.map((transition) => transition.state);

describe("each task seen through the gateway mirrors the A2A lifecycle", () => {
  test("a streamed task is recorded with every state it went through, ending finished", async () => {
    const events = await streamToEnd("echo recorded");
    const taskId = taskIdOfEvent(events[0]!)!;
    const [task] = (await history(`?task_id=${taskId}`)).tasks;
    expect(task).toMatchObject({ agent: "echo", task_id: taskId, state: "completed", live: false, virtual_key_id: null, status: { state: "TASK_STATE_COMPLETED" } });
    expect(statesOf(task!)).toEqual(["submitted", "working", "completed"]);
    const contextId = events[0]!.payload?.$case === "task" ? events[0]!.payload.value.contextId : undefined;
    expect(contextId).toBeTruthy();
    expect(task!.context_id).toBe(contextId!);
    const times = task!.transitions.map((transition) => Date.parse(transition.at));
    expect(times).toEqual([...times].sort());
  });

  test("a finished task read again keeps its history: a later sighting changes nothing", async () => {
    const taskId = taskIdOfEvent((await streamToEnd("echo read later"))[0]!)!;
    const [finished] = (await history(`?task_id=${taskId}`)).tasks;
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [after] = (await history(`?task_id=${taskId}`)).tasks;
    expect(after).toEqual(finished!);
    expect(statesOf(after!)).toEqual(["submitted", "working", "completed"]);
  });

  test("a task first met midway (a blocking send that returns it completed) starts where it stands", async () => {
    const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/rest/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "echo blocking" }] }, configuration: { returnImmediately: false } }),
    });
    const taskId = ((await response.json()) as { task: { id: string } }).task.id;
    const [task] = (await history(`?task_id=${taskId}`)).tasks;
    expect(task).toMatchObject({ state: "completed", live: false });
    expect(statesOf(task!)).toEqual(["completed"]);
  });

  test("input-required is live; the follow-up message carries the task on to completed", async () => {
    const asked = await streamToEnd("ask");
    const taskId = taskIdOfEvent(asked[0]!)!;
    const contextId = asked[0]!.payload?.$case === "task" ? asked[0]!.payload.value.contextId : "";
    expect((await history(`?task_id=${taskId}`)).tasks[0]).toMatchObject({ state: "input-required", live: true });
    const answered = await streamToEnd("echo Paris", taskId, contextId);
    expect(answered.map(describeEvent).at(-1)).toBe("status:completed");
    const [task] = (await history(`?task_id=${taskId}`)).tasks;
    expect(statesOf(task!)).toEqual(["submitted", "input-required", "working", "completed"]);
  });

  test("auth-required: the follow-up message carries the task on; the task's own status again is no new state", async () => {
    const asked = await streamToEnd("login");
    const taskId = taskIdOfEvent(asked[0]!)!;
    const contextId = asked[0]!.payload?.$case === "task" ? asked[0]!.payload.value.contextId : "";
    // The agent answers the follow-up with the task as it stands (auth-required) before it works on.
    expect((await streamToEnd("echo signed in", taskId, contextId)).map(describeEvent).at(-1)).toBe("status:completed");
    expect(statesOf((await history(`?task_id=${taskId}`)).tasks[0]!)).toEqual(["submitted", "auth-required", "working", "completed"]);
  });

  test("a task read while it is still submitted is recorded submitted once", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("queue me"));
    await stream.next();
    const taskId = await held;
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    agent.release(taskId);
    for await (const _ of stream);
    expect(statesOf((await history(`?task_id=${taskId}`)).tasks[0]!)).toEqual(["submitted", "working", "completed"]);
  });

  test("a second status in the same state is the task's status from then on", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("progress"));
    // The task, then "on it" and "halfway there", both working.
    for (let event = 0; event < 3; event++) await stream.next();
    const taskId = await held;
    const latest = await eventually(
      async () => (await history(`?task_id=${taskId}`)).tasks[0],
      (task) => JSON.stringify(task?.status).includes("halfway there"),
    );
    expect(latest).toMatchObject({ state: "working", live: true });
    expect(JSON.stringify(latest!.status)).toContain("halfway there");
    expect(statesOf(latest!)).toEqual(["submitted", "working"]);
    agent.release(taskId);
    for await (const _ of stream);
  });

  test("a task cancelled while it works ends canceled and keeps its context, though the agent's cancel names none", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("hold to cancel"));
    const first = await stream.next();
    const contextId = first.value?.payload?.$case === "task" ? first.value.payload.value.contextId : undefined;
    const taskId = await held;
    await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    await stream.return(undefined);
    const [task] = (await history(`?task_id=${taskId}`)).tasks;
    expect(task).toMatchObject({ state: "canceled", live: false });
    expect(contextId).toBeTruthy();
    expect(task!.context_id).toBe(contextId!);
  });

  test("auth-required is live, rejected is finished", async () => {
    const login = taskIdOfEvent((await streamToEnd("login"))[0]!)!;
    const refuse = taskIdOfEvent((await streamToEnd("refuse"))[0]!)!;
    expect((await history(`?task_id=${login}`)).tasks[0]).toMatchObject({ state: "auth-required", live: true });
    expect((await history(`?task_id=${refuse}`)).tasks[0]).toMatchObject({ state: "rejected", live: false });
    expect(statesOf((await history(`?task_id=${refuse}`)).tasks[0]!)).toEqual(["submitted", "rejected"]);
  });

  test("the gateway answers which tasks are live", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "HTTP+JSON" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("hold"));
    await stream.next();
    const taskId = await held;
    await stream.next();
    const live = await history("?live=true&state=working");
    expect(live.tasks.map((task) => task.task_id)).toEqual([taskId]);
    agent.release(taskId);
    for await (const _ of stream);
    expect((await history("?live=true&state=working")).tasks).toEqual([]);
    expect((await history(`?live=false&task_id=${taskId}`)).tasks[0]?.state).toBe("completed");
  });

  test("filters narrow the history and pages report the total", async () => {
    const all = await history("?agent=echo");
    expect(all.total_count).toBe(all.tasks.length);
    const page = await history("?agent=echo&limit=1&offset=1");
    expect(page).toMatchObject({ count: 1, total_count: all.total_count });
    expect(page.tasks[0]!.task_id).toBe(all.tasks[1]!.task_id);
    expect((await history("?agent=someone-else")).tasks).toEqual([]);
    const contextId = all.tasks[0]!.context_id!;
    expect((await history(`?context_id=${contextId}`)).tasks.every((task) => task.context_id === contextId)).toBe(true);
    await expectGatewayError(await gw.admin("/api/agents/history?state=sleeping"), 400, { param: "state" });
  });
});

describe("persistence", () => {
  test("after a restart the task's actor resumes from its snapshot, and a subscriber gets the current state first", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "HTTP+JSON" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("hold across a restart"));
    await stream.next();
    const taskId = await held;
    await stream.next();
    await stream.return(undefined);

    await gw.stop();
    gw = await gw.restart();
    expect((await history(`?task_id=${taskId}`)).tasks[0]).toMatchObject({ state: "working", live: true });

    const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/rest/tasks/${taskId}:subscribe`);
    const events = sseEvents(response);
    expect(stateOf((await events.next()).value!)).toBe("task:working");
    agent.release(taskId);
    for await (const _ of events);
    const [task] = (await history(`?task_id=${taskId}`)).tasks;
    expect(statesOf(task!)).toEqual(["submitted", "working", "completed"]);
    expect(task!.live).toBe(false);
  });
});
