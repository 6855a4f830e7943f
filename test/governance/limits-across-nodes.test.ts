import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import type { TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type ReplicaDeployment, startReplicaNodes } from "../support/replicas";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let deployment: ReplicaDeployment;
let eu: TestGateway;
let us: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  deployment = await startReplicaNodes({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } }, ["eu", "us"]);
  [eu, us] = deployment.nodes as [TestGateway, TestGateway];
});
afterAll(async () => {
  await deployment?.close();
  upstream.stop();
});

/** A key made on `eu`, once `us` knows it too. */
async function keyOnBothNodes(json: Record<string, unknown>) {
  const key = await createVirtualKey(eu, json);
  await eventually(
    async () => {
      const response = await fetch(`${us.url}/api/governance/virtual-keys/${key.id}`, { headers: { "x-gateway-setup-token": "test-setup-token" } });
      return response.status;
    },
    (status) => status === 200,
    5_000,
  );
  return key;
}

/** `perNode` chats on each node, all sent at once; the statuses they got. */
async function burst(key: string, perNode: number): Promise<number[]> {
  const answers = await Promise.all([eu, us].flatMap((node) => Array.from({ length: perNode }, () => chat(node, key))));
  return Promise.all(answers.map(async (answer) => (await answer.arrayBuffer(), answer.status)));
}

test("a rate limit of N requests over two nodes, hit by a burst on both at once, lets at most N through", async () => {
  const limit = 20;
  const key = await keyOnBothNodes({ name: "twenty-over-two-nodes", rate_limit: { request_max_limit: limit, request_reset_duration: "1h" } });
  const statuses = await burst(key.value, limit * 2);
  const admitted = statuses.filter((status) => status === 200).length;
  expect(admitted).toBeLessThanOrEqual(limit);
  // Under-used by at most the slices outstanding (a tenth of the limit on each node).
  expect(admitted).toBeGreaterThanOrEqual(limit - 2 * Math.ceil(limit / 10));
  expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
  // Later requests on either node are refused too: the nodes together used the limit.
  for (const node of [eu, us]) expect((await chat(node, key.value)).status).toBe(429);
});

test("a budget in money over two nodes, spent by requests on both in turn, stops where one node alone would", async () => {
  // The mock answers "one two three" with 3 prompt and 4 completion tokens: $0.11 a call at these prices.
  await created(eu, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: { input_cost_per_token: 0.01, output_cost_per_token: 0.02 } });
  const costPerCall = 3 * 0.01 + 4 * 0.02;
  const calls = 5;
  const key = await keyOnBothNodes({ name: "five-calls-of-money", budgets: [{ max_limit: calls * costPerCall, reset_duration: "1h" }] });
  // Both nodes price with the override before the budget is spent.
  await eventually(
    async () => (await (await us.admin("/api/governance/pricing-overrides")).text()).includes("round prices"),
    (seen) => seen,
    5_000,
  );
  const statuses: number[] = [];
  for (let turn = 0; turn < calls * 3; turn++) {
    const response = await chat(turn % 2 === 0 ? eu : us, key.value);
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  const admitted = statuses.filter((status) => status === 200).length;
  // A budget is charged after the reply, so the call that finds a cent left may pass it by one call, as on one node; never by a node's worth.
  expect(admitted).toBeGreaterThanOrEqual(calls);
  expect(admitted).toBeLessThanOrEqual(calls + 1);
  expect(statuses.slice(admitted)).toEqual(Array(statuses.length - admitted).fill(402));
});

test("a video that fails gives its charge back to the budget both nodes claim from: read on both nodes at once, the money is free again once, on either node", async () => {
  // A Sora video of 8 s at $0.30 a second costs $2.40: one passes a budget of $1, as a call that finds money left may.
  const price = 8 * 0.3;
  const key = await keyOnBothNodes({ name: "video refunded across nodes", budgets: [{ max_limit: 1, reset_duration: "1d" }] });
  const videos = (node: TestGateway) => new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gw-vk": key.value } }).videos;
  const createOn = async (node: TestGateway, prompt: string) => {
    const response = await fetch(`${node.url}/v1/videos`, { method: "POST", headers: { "content-type": "application/json", "x-gw-vk": key.value }, body: JSON.stringify({ model: "sora-2-pro", prompt, seconds: "8" }) });
    await response.arrayBuffer();
    return response.status;
  };
  const usedOn = async (node: TestGateway) => {
    const { budgets } = (await (await node.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
    return budgets.find((budget) => budget.owner_id === key.id)?.current_usage;
  };
  const shows = (node: TestGateway, dollars: number) => eventually(() => usedOn(node), (used) => used !== undefined && Math.abs(used - dollars) < 1e-9, 5_000);

  const doomed = await videos(eu).create({ model: "sora-2-pro", prompt: "something forbidden", seconds: "8" });
  await shows(us, price);
  expect(await createOn(eu, "refused on eu")).toBe(402);
  expect(await createOn(us, "refused on us")).toBe(402);

  // Sora's mock moves the video on with each read: both nodes find it failed, and race to give the charge back.
  const readUntilFailed = async (node: TestGateway) => {
    for (let video = await videos(node).retrieve(doomed.id); ; video = await videos(node).retrieve(doomed.id)) if (video.status === "failed") return video.status;
  };
  expect(await Promise.all([readUntilFailed(eu), readUntilFailed(us)])).toEqual(["failed", "failed"]);
  await shows(eu, 0);
  await shows(us, 0);

  // The node that neither charged nor holds an unused slice claims the money back from the primary.
  expect(await createOn(us, "a heron at dusk")).toBe(200);
  await shows(eu, price);
  expect(await createOn(eu, "one more after the refund")).toBe(402);
  expect(await createOn(us, "and one more")).toBe(402);
}, 30_000);
