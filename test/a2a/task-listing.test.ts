import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { gatewayAgentUrl, gatewayClient, registerAgent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";

const TRANSPORTS = ["HTTP+JSON", "JSONRPC"] as const;

let agent: SdkAgent;
beforeAll(async () => {
  agent = await startSdkAgent();
});
afterAll(() => agent.stop());

async function createVirtualKey(gw: TestGateway, name: string): Promise<string> {
  const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name, agent_grants: ["echo"] } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { virtual_key: { value: string } }).virtual_key.value;
}

async function startTask(client: Client, text: string): Promise<string> {
  const result = await client.sendMessage(userMessage(`echo ${text}`));
  if (!("id" in result)) throw new Error("the agent answered with a message, not a task");
  return result.id;
}

async function listedIds(client: Client): Promise<string[]> {
  const listed = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined });
  return listed.tasks.map((task) => task.id).sort();
}

/** A task started on the agent itself, which the gateway never saw. */
async function startTaskBehindTheGateway(): Promise<string> {
  const response = await fetch(`${agent.baseUrl}/a2a/rest/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION },
    body: JSON.stringify(restMessage("echo direct")),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { task: { id: string } }).task.id;
}

describe("where every caller has a virtual key", () => {
  let gw: TestGateway;
  const own: Record<string, string[]> = {};
  const values: Record<string, string> = {};

  beforeAll(async () => {
    gw = await startGateway({ enforce_auth_on_inference: true });
    await registerAgent(gw, "echo", agent.baseUrl);
    for (const name of ["alice", "bob"]) {
      values[name] = await createVirtualKey(gw, name);
      const client = await gatewayClient(gw, "echo", { transport: "HTTP+JSON", virtualKey: values[name] });
      own[name] = [await startTask(client, `${name} one`), await startTask(client, `${name} two`)].sort();
    }
    await startTaskBehindTheGateway();
  });
  afterAll(() => gw.close());

  for (const transport of TRANSPORTS) {
    test(`over ${transport}, each key lists only the tasks it started, though the agent holds them all`, async () => {
      for (const name of ["alice", "bob"]) {
        const client = await gatewayClient(gw, "echo", { transport, virtualKey: values[name] });
        expect({ name, tasks: await listedIds(client) }).toEqual({ name, tasks: own[name]! });
      }
    });
  }

  test("pages keep the agent's page tokens; following them yields the key's own tasks, and every page's totalSize is the key's total", async () => {
    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const query = new URLSearchParams({ pageSize: "1", ...(pageToken ? { pageToken } : {}) });
      const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/rest/tasks?${query}`, { headers: { "x-gw-vk": values.bob! } });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { tasks: Array<{ id: string }>; nextPageToken?: string; totalSize: number };
      // Before pagination, of the tasks bob may see: on every page, whatever it holds.
      expect(page.totalSize).toBe(own.bob!.length);
      seen.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken ?? "";
      pages += 1;
    } while (pageToken);
    // The agent holds five tasks, one per page; only bob's two come through.
    expect(pages).toBeGreaterThanOrEqual(5);
    expect(seen.sort()).toEqual(own.bob!);
  });

  test("totalSize counts only the key's tasks that match the request's filters", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC", virtualKey: values.alice });
    const task = await client.getTask({ tenant: "", id: own.alice![0]!, historyLength: undefined });
    const total = async (filters: { contextId?: string; status?: TaskState; statusTimestampAfter?: string }) =>
      (await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined, ...filters })).totalSize;
    expect(await total({})).toBe(2);
    expect(await total({ contextId: task.contextId })).toBe(1);
    expect(await total({ status: TaskState.TASK_STATE_COMPLETED })).toBe(2);
    expect(await total({ status: TaskState.TASK_STATE_WORKING })).toBe(0);
    expect(await total({ statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).toBe(0);
  });
});

test("where keys are optional, tasks started without a key are listed only to callers without one", async () => {
  const gw = await startGateway();
  try {
    await registerAgent(gw, "echo", agent.baseUrl);
    const keyValue = await createVirtualKey(gw, "carol");
    const anonymousTask = await startTask(await gatewayClient(gw, "echo", { transport: "JSONRPC" }), "nobody's");
    const carolsTask = await startTask(await gatewayClient(gw, "echo", { transport: "JSONRPC", virtualKey: keyValue }), "carol's");
    for (const transport of TRANSPORTS) {
      expect({ transport, tasks: await listedIds(await gatewayClient(gw, "echo", { transport })) }).toEqual({ transport, tasks: [anonymousTask] });
      expect({ transport, tasks: await listedIds(await gatewayClient(gw, "echo", { transport, virtualKey: keyValue })) }).toEqual({ transport, tasks: [carolsTask] });
    }
  } finally {
    await gw.close();
  }
});
