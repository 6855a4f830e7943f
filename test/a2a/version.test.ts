import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gatewayAgentUrl, registerAgent } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";

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

function sendOverRest(version?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (version !== undefined) headers["A2A-Version"] = version;
  return fetch(`${gatewayAgentUrl(gw, "echo")}/rest/message:send`, { method: "POST", headers, body: JSON.stringify(restMessage("echo versioned")) });
}

/** The version header of the last call that reached the agent, or undefined when none did since `before`. */
const versionSeenUpstream = (before: number) => agent.requests.slice(before).find((request) => request.method === "POST")?.headers.get("a2a-version");

const VERSION_NOT_SUPPORTED = {
  code: 400,
  status: "FAILED_PRECONDITION",
  details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "VERSION_NOT_SUPPORTED", domain: "a2a-protocol.org" }],
};

describe("the A2A-Version header", () => {
  test("omitted: the call is served at the SDK's default version, which the agent is sent", async () => {
    const before = agent.requests.length;
    const response = await sendOverRest();
    expect(response.status).toBe(200);
    expect(versionSeenUpstream(before)).toBe("1.0");
  });

  test("1.0 is served as asked", async () => {
    const before = agent.requests.length;
    expect((await sendOverRest("1.0")).status).toBe(200);
    expect(versionSeenUpstream(before)).toBe("1.0");
  });

  test("any 1.x is served: 1.2 reaches an agent that declares 1.0 as 1.0", async () => {
    const before = agent.requests.length;
    const response = await sendOverRest("1.2");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { task: { status: { state: string } } }).task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(versionSeenUpstream(before)).toBe("1.0");
  });

  for (const version of ["2.0", "0.3", "latest"]) {
    test(`'${version}' is refused with the A2A error envelope before the agent is called`, async () => {
      const before = agent.requests.length;
      const response = await sendOverRest(version);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { ...VERSION_NOT_SUPPORTED, message: expect.stringContaining(version) } });
      expect(agent.requests.length).toBe(before);
    });
  }

  test("a subscription asking for another major is refused before any stream starts", async () => {
    const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/rest/tasks/some-task:subscribe`, { headers: { "A2A-Version": "3.1" } });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).not.toContain("event-stream");
    expect(await response.json()).toMatchObject({ error: VERSION_NOT_SUPPORTED });
  });

  test("on JSON-RPC the refusal is the VersionNotSupported error (-32009) for the request's id", async () => {
    const response = await fetch(`${gatewayAgentUrl(gw, "echo")}/json-rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "2.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "req-7", method: "SendMessage", params: restMessage("echo rpc") }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: "req-7", error: { code: -32009, data: [{ reason: "VERSION_NOT_SUPPORTED" }] } });
  });
});
