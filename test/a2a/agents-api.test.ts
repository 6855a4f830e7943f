import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { gatewayAgentUrl, registerAgent } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { restMessage } from "../support/a2a-sse";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";

const UPSTREAM_SECRET = "Bearer upstream-secret-value-0042";

type AgentView = { description: string; headers: Record<string, string> } & Record<string, unknown>;

let gw: TestGateway;
let agent: SdkAgent;
let other: SdkAgent;

beforeAll(async () => {
  process.env.A2A_TEST_UPSTREAM_TENANT = "tenant-from-env";
  [agent, other] = await Promise.all([startSdkAgent({ name: "First agent" }), startSdkAgent({ name: "Second agent" })]);
  gw = await startGateway({ env_references: { allow: ["A2A_TEST_UPSTREAM_TENANT"] } });
});
afterAll(async () => {
  await gw.close();
  await Promise.all([agent.stop(), other.stop()]);
});

const sendThrough = (name: string) =>
  fetch(`${gatewayAgentUrl(gw, name)}/rest/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(restMessage("echo hi")) });

describe("POST /api/agents", () => {
  test("registers the agent, caches its card and answers with the headers redacted", async () => {
    const created = await registerAgent(gw, "first", agent.baseUrl, { description: "the first", headers: { authorization: UPSTREAM_SECRET, "x-tenant": "env.A2A_TEST_UPSTREAM_TENANT" } });
    expect(created).toMatchObject({
      name: "first",
      url: agent.baseUrl,
      description: "the first",
      enabled: true,
      gateway_path: "/agents/a2a/first",
      card_error: null,
      headers: { authorization: "****0042", "x-tenant": "env.A2A_TEST_UPSTREAM_TENANT" },
    });
    expect((created.agent_card as { name: string }).name).toBe("First agent");
    expect(Date.parse(created.card_fetched_at as string)).toBeGreaterThan(0);
    expect(JSON.stringify(created)).not.toContain(UPSTREAM_SECRET);
  });

  test("the configured headers are sent upstream with env references resolved, on the card fetch and on every call", async () => {
    const cardFetch = agent.requests.find((request) => request.path === "/.well-known/agent-card.json")!;
    expect(cardFetch.headers.get("authorization")).toBe(UPSTREAM_SECRET);
    const before = agent.requests.length;
    expect((await sendThrough("first")).status).toBe(200);
    const sent = agent.requests.slice(before).find((request) => request.method === "POST")!;
    expect(sent.headers.get("authorization")).toBe(UPSTREAM_SECRET);
    expect(sent.headers.get("x-tenant")).toBe("tenant-from-env");
  });

  test("header values are encrypted at rest", async () => {
    const client = createClient({ url: gw.databaseUrl });
    try {
      const rows = (await client.execute("SELECT * FROM a2a_agents")).rows;
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain("upstream-secret-value");
    } finally {
      client.close();
    }
  });

  test("an agent whose card cannot be fetched is registered with the reason, and calls to it fail with a 502 envelope", async () => {
    const created = await registerAgent(gw, "cardless", `${agent.baseUrl}/nowhere`);
    expect(created.agent_card).toBeNull();
    expect(created.card_error).toContain("answered 404");
    const response = await sendThrough("cardless");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 502, status: "UNAVAILABLE", message: expect.stringContaining("card"), details: [{ reason: "PROVIDER_AGENT_CARD_UNAVAILABLE" }] } });
  });

  test("names, URLs and headers are checked", async () => {
    await expectGatewayError(await gw.admin("/api/agents", { method: "POST", json: { name: "first", url: agent.baseUrl } }), 409, { param: "name" });
    await expectGatewayError(await gw.admin("/api/agents", { method: "POST", json: { name: "history", url: agent.baseUrl } }), 400, { param: "name" });
    await expectGatewayError(await gw.admin("/api/agents", { method: "POST", json: { name: "has/slash", url: agent.baseUrl } }), 400, { param: "name" });
    await expectGatewayError(await gw.admin("/api/agents", { method: "POST", json: { name: "ftp", url: "ftp://example.com/agent" } }), 400, { param: "url" });
    await expectGatewayError(await gw.admin("/api/agents", { method: "POST", json: { name: "no-url" } }), 400, { param: "url" });
    await expectGatewayError(
      await gw.admin("/api/agents", { method: "POST", json: { name: "reserved", url: agent.baseUrl, headers: { "A2A-Version": "9.9" } } }),
      400,
      { param: "headers.A2A-Version" },
    );
  });
});

describe("GET /api/agents and /api/agents/{name}", () => {
  test("lists every agent and reads one", async () => {
    const listed = (await (await gw.admin("/api/agents")).json()) as { agents: Array<{ name: string }>; count: number };
    expect(listed.agents.map((entry) => entry.name)).toEqual(["cardless", "first"]);
    expect(listed.count).toBe(2);
    const one = (await (await gw.admin("/api/agents/first")).json()) as AgentView;
    expect(one.headers.authorization).toBe("****0042");
  });

  test("an unknown agent is a 404 with the gateway error body", async () => {
    await expectGatewayError(await gw.admin("/api/agents/nobody"), 404, { errorType: "caller_agent_not_found" });
  });
});

describe("PUT /api/agents/{name}", () => {
  test("writing back what was read keeps the stored secret", async () => {
    const read = (await (await gw.admin("/api/agents/first")).json()) as AgentView;
    const response = await gw.admin("/api/agents/first", { method: "PUT", json: { ...read, description: "renamed description" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as AgentView).description).toBe("renamed description");
    const before = agent.requests.length;
    await sendThrough("first");
    expect(agent.requests.slice(before).find((request) => request.method === "POST")!.headers.get("authorization")).toBe(UPSTREAM_SECRET);
  });

  test("a new URL fetches the new agent's card", async () => {
    const updated = await (await gw.admin("/api/agents/cardless", { method: "PUT", json: { url: other.baseUrl } })).json();
    expect(updated).toMatchObject({ card_error: null, agent_card: { name: "Second agent" } });
    expect((await sendThrough("cardless")).status).toBe(200);
  });

  test("an agent cannot be renamed", async () => {
    await expectGatewayError(await gw.admin("/api/agents/first", { method: "PUT", json: { name: "second", url: agent.baseUrl } }), 400, { param: "name" });
  });
});

describe("DELETE /api/agents/{name}", () => {
  test("removes the agent: its routes answer an empty 404 afterwards", async () => {
    await registerAgent(gw, "short-lived", agent.baseUrl);
    const deleted = await gw.admin("/api/agents/short-lived", { method: "DELETE" });
    expect(await deleted.json()).toEqual({ message: "Agent deleted successfully" });
    await expectGatewayError(await gw.admin("/api/agents/short-lived"), 404);
    const response = await sendThrough("short-lived");
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 404, body: "" });
  });
});

describe("permissions (enterprise)", () => {
  test("Agents:View reads agents and their task history; writing needs Agents:Create", async () => {
    const enterprise = await startGateway({ edition: "enterprise", auth: AUTH_CONFIG });
    try {
      const viewer = bearer(await createApiKey(enterprise, "agent-viewer", ["Agents:View"]));
      expect((await call(enterprise, "/api/agents", { headers: viewer })).status).toBe(200);
      expect((await call(enterprise, "/api/agents/history", { headers: viewer })).status).toBe(200);
      await expectGatewayError(await call(enterprise, "/api/agents", { method: "POST", headers: viewer, json: { name: "x", url: agent.baseUrl } }), 403);
    } finally {
      await enterprise.close();
    }
  });
});
