import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { eventually } from "../support/eventually";
import { chat, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  const config = { enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } };
  [first, second] = await startNodes(config);
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
});

/** The status a chat with `vk` gets from `node` once it has caught up (nodes check for each other's changes every second). */
const statusOn = (node: TestGateway, vk: string, expected: number) =>
  eventually(
    async () => {
      const response = await chat(node, vk);
      await response.arrayBuffer();
      return response.status;
    },
    (status) => status === expected,
  );

test("a virtual key created, rotated or deleted on one node takes effect on the other without a restart", async () => {
  const key = await createVirtualKey(first, { name: "made-on-first" });
  expect(await statusOn(second, key.value, 200)).toBe(200);

  const rotated = (await (await first.admin(`/api/governance/virtual-keys/${key.id}/rotate`, { method: "POST" })).json()) as { virtual_key: { value: string } };
  expect(await statusOn(second, rotated.virtual_key.value, 200)).toBe(200);
  expect(await statusOn(second, key.value, 401)).toBe(401);

  expect((await first.admin(`/api/governance/virtual-keys/${key.id}`, { method: "DELETE" })).status).toBe(200);
  expect(await statusOn(second, rotated.virtual_key.value, 401)).toBe(401);
});

test("a team's budget lowered on one node is enforced by the other", async () => {
  const { team } = (await (await first.admin("/api/governance/teams", { method: "POST", json: { name: "frugal", budgets: [{ max_limit: 100, reset_duration: "1d" }] } })).json()) as { team: { id: string } };
  const key = await createVirtualKey(first, { name: "in-frugal", team_id: team.id });
  expect(await statusOn(second, key.value, 200)).toBe(200);
  const lowered = await first.admin(`/api/governance/teams/${team.id}`, { method: "PUT", json: { budgets: [{ max_limit: 0.000001, reset_duration: "1d" }] } });
  expect(lowered.status).toBe(200);
  // The call the other node already answered spent past the new budget, once the budget reaches it.
  expect(await statusOn(second, key.value, 402)).toBe(402);
});

test("a provider and its key added on one node carry the other node's traffic", async () => {
  const key = await createVirtualKey(first, { name: "uses-groq" });
  const added = await first.admin("/api/providers", {
    method: "POST",
    json: { provider: "groq", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "groq-1", value: "sk-groq-added-on-first", models: ["*"] }] },
  });
  expect(added.status).toBe(201);
  const status = await eventually(
    async () => {
      const response = await chat(second, key.value, { model: "groq/llama-3.1-8b-instant" });
      await response.arrayBuffer();
      return response.status;
    },
    (answered) => answered === 200,
  );
  expect(status).toBe(200);
  expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-groq-added-on-first");
});
