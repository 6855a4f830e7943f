import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import { gatewayAgentUrl, gatewayClient, registerAgent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { startGateway, type TestGateway } from "../support/gateway";

/** An agent's card says what the gateway enforces, and a refused JSON-RPC call answers with its request's id. */

let agent: SdkAgent;
let gw: TestGateway;
let granted: string;
let notGranted: string;

async function createVirtualKey(name: string, agentGrants: string[]): Promise<string> {
  const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name, agent_grants: agentGrants } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { virtual_key: { value: string } }).virtual_key.value;
}

beforeAll(async () => {
  agent = await startSdkAgent();
  gw = await startGateway({ enforce_auth_on_inference: true });
  await registerAgent(gw, "echo", agent.baseUrl);
  granted = await createVirtualKey("granted", ["echo"]);
  notGranted = await createVirtualKey("elsewhere", ["other"]);
});
afterAll(async () => {
  await gw.close();
  await agent.stop();
});

const getTask = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "GetTask", params: { id: "some-task" } });
const rpc = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${gatewayAgentUrl(gw, "echo")}/json-rpc`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers }, body });

describe("where a virtual key is required", () => {
  test("the card declares the virtual key as its security scheme and requires it", async () => {
    const card = (await (await fetch(`${gatewayAgentUrl(gw, "echo")}/.well-known/agent-card.json`, { headers: { "x-gw-vk": granted } })).json()) as Record<string, unknown>;
    expect(card.securitySchemes).toEqual({ gateway_virtual_key: { apiKeySecurityScheme: expect.objectContaining({ location: "header", name: "x-gw-vk" }) } });
    expect(card.securityRequirements).toEqual([{ schemes: { gateway_virtual_key: { list: [] } } }]);
  });

  test("the SDK client with the key it declares gets through", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC", virtualKey: granted });
    const result = await client.sendMessage(userMessage("echo with a key"));
    expect("status" in result && result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  const REFUSALS: Array<[string, () => Record<string, string>, number]> = [
    ["no key", () => ({}), 401],
    ["a Bearer token that is not a virtual key", () => ({ authorization: "Bearer not-a-gateway-key" }), 401],
    ["a key not granted the agent", () => ({ "x-gw-vk": notGranted }), 403],
  ];
  for (const [what, headers, status] of REFUSALS) {
    test(`a JSON-RPC call with ${what} is refused ${status}, answered with the request's id`, async () => {
      for (const id of [42, "request-7"]) {
        const response = await rpc(getTask(id), headers());
        expect(response.status).toBe(status);
        expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id, error: { code: expect.any(Number), message: expect.any(String) } });
      }
    });
  }
});
