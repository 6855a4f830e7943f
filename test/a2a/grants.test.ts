import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { gatewayAgentUrl, gatewayClient, registerAgent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";

let gw: TestGateway;
let agent: SdkAgent;
const keys: Record<string, { id: string; value: string }> = {};

async function createVirtualKey(name: string, fields: Record<string, unknown>) {
  const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name, ...fields } });
  expect(response.status).toBe(201);
  const { virtual_key } = (await response.json()) as { virtual_key: { id: string; value: string } };
  keys[name] = { id: virtual_key.id, value: virtual_key.value };
}

beforeAll(async () => {
  agent = await startSdkAgent();
  gw = await startGateway({ enforce_auth_on_inference: true });
  await registerAgent(gw, "echo", agent.baseUrl);
  await registerAgent(gw, "other", agent.baseUrl);
  await createVirtualKey("echo-only", { agent_grants: ["echo"] });
  await createVirtualKey("everything", { agent_grants: ["*"] });
  await createVirtualKey("nothing", {});
  await createVirtualKey("switched-off", { agent_grants: ["echo"], is_active: false });
  await createVirtualKey("two-calls", { agent_grants: ["echo"], rate_limit: { request_max_limit: 2, request_reset_duration: "1h" } });
});
afterAll(async () => {
  await gw.close();
  await agent.stop();
});

function sendOverRest(name: string, headers: Record<string, string>) {
  return fetch(`${gatewayAgentUrl(gw, name)}/rest/message:send`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(restMessage("echo granted")) });
}

async function expectEnvelope(response: Response, code: number, status: string, reason: string) {
  expect(response.status).toBe(code);
  expect(await response.json()).toMatchObject({ error: { code, status, message: expect.any(String), details: [{ reason, domain: "gateway" }] } });
}

describe("a virtual key's agent grants decide which agents it reaches", () => {
  test("a key granted the agent reaches it through the SDK client; the key itself never reaches the agent", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC", virtualKey: keys["echo-only"]!.value });
    const before = agent.requests.length;
    const result = await client.sendMessage(userMessage("echo with a key"));
    expect("status" in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const upstream = agent.requests.slice(before);
    expect(upstream.length).toBeGreaterThan(0);
    for (const request of upstream) expect(JSON.stringify([...request.headers])).not.toContain(keys["echo-only"]!.value);
  });

  test("the key is accepted in x-gw-vk, Authorization: Bearer, x-api-key and x-goog-api-key", async () => {
    const value = keys["echo-only"]!.value;
    const placements: Array<Record<string, string>> = [{ "x-gw-vk": value }, { authorization: `Bearer ${value}` }, { "x-api-key": value }, { "x-goog-api-key": value }];
    for (const headers of placements) {
      expect({ headers, status: (await sendOverRest("echo", headers)).status }).toEqual({ headers, status: 200 });
    }
  });

  test("a key not granted the agent is refused with 403 PERMISSION_DENIED, on the card too", async () => {
    const headers = { "x-gw-vk": keys["echo-only"]!.value };
    await expectEnvelope(await sendOverRest("other", headers), 403, "PERMISSION_DENIED", "POLICY_AGENT_NOT_GRANTED");
    await expectEnvelope(await fetch(`${gatewayAgentUrl(gw, "other")}/.well-known/agent-card.json`, { headers }), 403, "PERMISSION_DENIED", "POLICY_AGENT_NOT_GRANTED");
    const refused = (await (await sendOverRest("other", headers)).json()) as { error: { message: string } };
    expect(refused.error.message).toBe("virtual key 'echo-only' is not granted agent 'other'");
  });

  test("a key without grants reaches no agent; a `*` grant reaches every agent", async () => {
    await expectEnvelope(await sendOverRest("echo", { "x-gw-vk": keys.nothing!.value }), 403, "PERMISSION_DENIED", "POLICY_AGENT_NOT_GRANTED");
    for (const name of ["echo", "other"]) expect((await sendOverRest(name, { "x-gw-vk": keys.everything!.value })).status).toBe(200);
  });

  test("without a key, with an unknown key or an inactive one, the call is refused before the agent is called", async () => {
    const before = agent.requests.length;
    await expectEnvelope(await sendOverRest("echo", {}), 401, "UNAUTHENTICATED", "CALLER_VIRTUAL_KEY_REQUIRED");
    await expectEnvelope(await sendOverRest("echo", { "x-gw-vk": "sk-gw-not-a-real-key" }), 401, "UNAUTHENTICATED", "CALLER_VIRTUAL_KEY_INVALID");
    await expectEnvelope(await sendOverRest("echo", { "x-gw-vk": keys["switched-off"]!.value }), 403, "PERMISSION_DENIED", "CALLER_VIRTUAL_KEY_INACTIVE");
    expect(agent.requests.length).toBe(before);
  });

  test("on JSON-RPC a refusal keeps its HTTP status and carries a JSON-RPC error object", async () => {
    const response = await fetch(`${gatewayAgentUrl(gw, "other")}/json-rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-vk": keys["echo-only"]!.value },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "SendMessage", params: restMessage("echo nope") }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, data: [{ reason: "POLICY_AGENT_NOT_GRANTED" }] } });
  });

  test("an unknown agent is an empty 404 whatever the credentials", async () => {
    const credentials: Array<Record<string, string>> = [{}, { "x-gw-vk": keys.everything!.value }];
    for (const headers of credentials) {
      const response = await sendOverRest("nobody", headers);
      expect({ status: response.status, body: await response.text() }).toEqual({ status: 404, body: "" });
    }
  });
});

describe("governance policy", () => {
  test("the key's request limit counts agent calls: past it, 429 RESOURCE_EXHAUSTED with retry-after", async () => {
    const headers = { "x-gw-vk": keys["two-calls"]!.value };
    expect((await sendOverRest("echo", headers)).status).toBe(200);
    expect((await sendOverRest("echo", headers)).status).toBe(200);
    const refused = await sendOverRest("echo", headers);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectEnvelope(refused, 429, "RESOURCE_EXHAUSTED", "POLICY_RATE_LIMITED");
  });
});

describe("tasks belong to the key that started them", () => {
  test("another key, even one granted the agent, cannot see or cancel the task; the owner can, and the history names the owner", async () => {
    const owner = await gatewayClient(gw, "echo", { transport: "HTTP+JSON", virtualKey: keys.everything!.value });
    const stranger = await gatewayClient(gw, "echo", { transport: "HTTP+JSON", virtualKey: keys["echo-only"]!.value });
    const result = await owner.sendMessage(userMessage("echo mine"));
    const taskId = "id" in result ? result.id : "";
    expect((await owner.getTask({ tenant: "", id: taskId })).id).toBe(taskId);
    await expect(stranger.getTask({ tenant: "", id: taskId })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(stranger.cancelTask({ tenant: "", id: taskId, metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    // Nor continue it: a message naming the task is refused before it reaches the agent, streamed or not.
    const sentBefore = agent.requests.length;
    await expect(stranger.sendMessage(userMessage("echo hijacked", taskId))).rejects.toBeInstanceOf(TaskNotFoundError);
    const streamed = (async () => {
      for await (const _event of stranger.sendMessageStream(userMessage("echo hijacked", taskId)));
    })();
    await expect(streamed).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(agent.requests.length).toBe(sentBefore);
    const history = (await (await gw.admin(`/api/agents/history?virtual_key_id=${keys.everything!.id}`)).json()) as { tasks: Array<{ task_id: string }> };
    expect(history.tasks.map((task) => task.task_id)).toContain(taskId);
  });
});

test("where keys are optional, calls without one go through, but a key that is presented must be valid", async () => {
  const open = await startGateway();
  try {
    await registerAgent(open, "echo", agent.baseUrl);
    const send = (headers: Record<string, string>) =>
      fetch(`${gatewayAgentUrl(open, "echo")}/rest/message:send`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(restMessage("echo open")) });
    expect((await send({})).status).toBe(200);
    expect((await send({ "x-gw-vk": "sk-gw-made-up" })).status).toBe(401);
  } finally {
    await open.close();
  }
});
