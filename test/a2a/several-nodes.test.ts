import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@a2a-js/sdk/client";
import { gatewayAgentUrl, gatewayClient, registerAgent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";

let first: TestGateway;
let second: TestGateway;
let agent: SdkAgent;
let other: SdkAgent;

beforeAll(async () => {
  [agent, other] = await Promise.all([startSdkAgent({ name: "First agent" }), startSdkAgent({ name: "Second agent" })]);
  [first, second] = await startNodes();
});
afterAll(async () => {
  await closeNodes([first, second]);
  await Promise.all([agent.stop(), other.stop()]);
});

/** Each step waits up to a second for the other node's check: a test of several steps gets more than bun's 5 s. */
const SEVERAL_CHECKS_MS = 10_000;

/** The name on the card `node` serves for the agent, else the status it answers; polled until `expected` (nodes check each other's changes every second). */
const cardOn = (node: TestGateway, name: string, expected: string | number) =>
  eventually(
    async () => {
      const response = await fetch(`${gatewayAgentUrl(node, name)}/.well-known/agent-card.json`);
      if (response.status === 200) return ((await response.json()) as { name: string }).name;
      await response.arrayBuffer();
      return response.status;
    },
    (seen) => seen === expected,
  );

const textOf = (result: Awaited<ReturnType<Client["sendMessage"]>>) =>
  "artifacts" in result ? result.artifacts.flatMap((artifact) => artifact.parts.map((part) => (part.content?.$case === "text" ? part.content.value : ""))).join("") : "";

const postsSince = (upstream: SdkAgent, before: number) => upstream.requests.slice(before).filter((request) => request.method === "POST");

describe("A2A agents on two nodes sharing one database", () => {
  test("an agent registered on one node is routed by the other, with its headers, and follows a new URL set on the first", async () => {
    await registerAgent(first, "roaming", agent.baseUrl, { headers: { authorization: "Bearer set-on-first" } });
    expect(await cardOn(second, "roaming", "First agent")).toBe("First agent");
    const before = agent.requests.length;
    const client = await gatewayClient(second, "roaming", { transport: "JSONRPC" });
    expect(textOf(await client.sendMessage(userMessage("echo across nodes")))).toBe("echo: across nodes");
    expect(postsSince(agent, before).map((request) => request.headers.get("authorization"))).toEqual(["Bearer set-on-first"]);

    const moved = await first.admin("/api/agents/roaming", { method: "PUT", json: { url: other.baseUrl } });
    expect(moved.status).toBe(200);
    expect(await cardOn(second, "roaming", "Second agent")).toBe("Second agent");
    const [agentBefore, otherBefore] = [agent.requests.length, other.requests.length];
    const movedClient = await gatewayClient(second, "roaming", { transport: "HTTP+JSON" });
    expect(textOf(await movedClient.sendMessage(userMessage("echo moved")))).toBe("echo: moved");
    expect(postsSince(other, otherBefore)).toHaveLength(1);
    expect(postsSince(agent, agentBefore)).toEqual([]);
  }, SEVERAL_CHECKS_MS);

  test("an agent disabled, enabled again, then deleted on one node follows on the other", async () => {
    await registerAgent(first, "leaving", agent.baseUrl);
    expect(await cardOn(second, "leaving", "First agent")).toBe("First agent");

    expect((await first.admin("/api/agents/leaving", { method: "PUT", json: { url: agent.baseUrl, enabled: false } })).status).toBe(200);
    expect(await cardOn(second, "leaving", 404)).toBe(404);
    expect((await first.admin("/api/agents/leaving", { method: "PUT", json: { url: agent.baseUrl, enabled: true } })).status).toBe(200);
    expect(await cardOn(second, "leaving", "First agent")).toBe("First agent");

    expect((await first.admin("/api/agents/leaving", { method: "DELETE" })).status).toBe(200);
    expect(await cardOn(second, "leaving", 404)).toBe(404);
    expect((await second.admin("/api/agents/leaving")).status).toBe(404);
  }, SEVERAL_CHECKS_MS);

  test("the sharing goes both ways: an agent registered on the second node is routed by the first", async () => {
    await registerAgent(second, "from-second", other.baseUrl);
    expect(await cardOn(first, "from-second", "Second agent")).toBe("Second agent");
  });
});
