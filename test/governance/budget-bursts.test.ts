import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type ReplicaDeployment, startReplicaNodes } from "../support/replicas";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

/**
 * The mock answers "one two three" with 3 prompt and 4 completion tokens: $0.11 at these prices.
 * A call that asks for at most 4 output tokens is estimated at $0.13: its 13 characters of text
 * as 5 input tokens (a token to three characters), and its 4 output tokens.
 */
const PRICE = { input_cost_per_token: 0.01, output_cost_per_token: 0.02 };
const COST_PER_CALL = 3 * 0.01 + 4 * 0.02;
const ESTIMATE = 5 * 0.01 + 4 * 0.02;
const CAPPED = { max_tokens: 4 };
const BUDGET = 1.0;
const BURST = 100;

/** The statuses of `count` chats sent at once, spread over `nodes`. */
async function burst(nodes: readonly TestGateway[], key: string, count: number): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: count }, (_, index) => chat(nodes[index % nodes.length]!, key, CAPPED)));
  return Promise.all(answers.map(async (answer) => (await answer.arrayBuffer(), answer.status)));
}

/** The key's budget usage once every call served is charged: `served` calls at their price. */
async function settledUsage(gw: TestGateway, keyId: string, served: number): Promise<number> {
  const usageOf = async () => {
    const { budgets } = (await (await gw.admin("/api/governance/budgets")).json()) as { budgets: Array<{ owner_id: string; current_usage: number }> };
    return budgets.find((budget) => budget.owner_id === keyId)?.current_usage ?? 0;
  };
  return eventually(usageOf, (usage) => Math.abs(usage - served * COST_PER_CALL) < 1e-9, 10_000);
}

/**
 * What reservations allow: a call is admitted while anything of the budget is neither spent nor
 * reserved, so the budget is passed by at most the last call admitted, plus, on several nodes,
 * one reservation each node has not reported yet. Estimates above the real cost leave some unused.
 */
function expectWithinBudget(served: number, usage: number, nodes: number) {
  expect(usage).toBeLessThanOrEqual(BUDGET + nodes * ESTIMATE + 1e-9);
  expect(served).toBeGreaterThanOrEqual(Math.floor(BUDGET / ESTIMATE) - nodes);
}

describe("a burst on a money budget stops where the budget runs out: each call reserves its estimated cost at admission", () => {
  let upstream: MockOpenAI;
  let gw: TestGateway;
  beforeAll(async () => {
    upstream = startMockOpenAI();
    gw = await startGateway({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } });
    await created(gw, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  test(`one node: a call, then ${BURST} at once, on a budget of about nine calls, serves 8`, async () => {
    const key = await createVirtualKey(gw, { name: "burst-on-one-node", budgets: [{ max_limit: BUDGET, reset_duration: "1h" }] });
    expect((await chat(gw, key.value, CAPPED)).status).toBe(200);
    const statuses = await burst([gw], key.value, BURST);
    const served = 1 + statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
    expectWithinBudget(served, await settledUsage(gw, key.id, served), 1);
    // On one node, exactly: the first call's cost, then calls while their reservations leave anything.
    expect(served).toBe(1 + Math.ceil((BUDGET - COST_PER_CALL) / ESTIMATE));
    // What was reserved and not spent went back: calls one after another spend the rest, and stop where one node stops them.
    let more = 0;
    while ((await chat(gw, key.value, CAPPED)).status === 200) more++;
    expect(served + more).toBe(Math.ceil(BUDGET / COST_PER_CALL));
  });

  test("a call that settles gives back its reservation: calls one after another spend the budget to its end", async () => {
    const key = await createVirtualKey(gw, { name: "one-after-another", budgets: [{ max_limit: 5 * COST_PER_CALL - 0.01, reset_duration: "1h" }] });
    // Asking for up to 100 output tokens reserves $2.05 a call, far more than the 4 tokens each costs.
    const statuses: number[] = [];
    for (let call = 0; call < 7; call++) {
      const response = await chat(gw, key.value, { max_tokens: 100 });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 402, 402]);
  });
});

describe("two nodes on one database: a burst on both at once stops where the budget runs out", () => {
  let upstream: MockOpenAI;
  let deployment: ReplicaDeployment;
  let nodes: TestGateway[];
  beforeAll(async () => {
    upstream = startMockOpenAI();
    deployment = await startReplicaNodes({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } }, ["eu", "us"]);
    nodes = deployment.nodes;
    await created(nodes[0]!, "/api/governance/pricing-overrides", { name: "round prices", pattern: "gpt-4o-mini", patch: PRICE });
  });
  afterAll(async () => {
    await deployment?.close();
    upstream.stop();
  });

  test(`a call, then ${BURST} at once split over both nodes`, async () => {
    const [eu, us] = nodes as [TestGateway, TestGateway];
    const key = await createVirtualKey(eu, { name: "burst-on-two-nodes", budgets: [{ max_limit: BUDGET, reset_duration: "1h" }] });
    // Both nodes know the key and price with the override before the burst.
    await eventually(
      async () => (await fetch(`${us.url}/api/governance/virtual-keys/${key.id}`, { headers: { "x-gateway-setup-token": "test-setup-token" } })).status,
      (status) => status === 200,
      5_000,
    );
    await eventually(
      async () => (await (await us.admin("/api/governance/pricing-overrides")).text()).includes("round prices"),
      (seen) => seen,
      5_000,
    );
    expect((await chat(eu, key.value, CAPPED)).status).toBe(200);
    const statuses = await burst(nodes, key.value, BURST);
    const served = 1 + statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200).every((status) => status === 402)).toBe(true);
    // Every call served costs the same: the usage is theirs.
    expectWithinBudget(served, served * COST_PER_CALL, 2);
    for (const node of nodes) expect((await chat(node, key.value, CAPPED)).status).toBe(402);
  });
});
