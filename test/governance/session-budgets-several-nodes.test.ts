import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  [first, second] = await startNodes({ providers: { openai: openAIProvider(upstream) } });
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
});

interface SessionRow {
  session_id: string;
  tokens: number;
  requests: number;
  exceeded: string | null;
}

const sessionsOn = async (node: TestGateway, keyId: string) => {
  const response = await node.admin(`/api/governance/virtual-keys/${keyId}/sessions`);
  return response.status === 200 ? ((await response.json()) as { sessions: SessionRow[] }).sessions : [];
};

/** Waits until `node` reports `tokens` spent by `session`: the charge of a reply lands after the client has it. */
const spentOn = (node: TestGateway, keyId: string, session: string, tokens: number) =>
  eventually(
    () => sessionsOn(node, keyId),
    (rows) => rows.some((row) => row.session_id === session && row.tokens === tokens),
  );

test("a session spread over two nodes is held to one budget: what either node charged counts on both", async () => {
  // "one two three" and its echo: 7 tokens a request, so two requests use the whole budget.
  const key = await createVirtualKey(first, { name: "two-node-runs", session_budgets: { max_tokens: 14 } });
  const run = (node: TestGateway, session: string) => chat(node, key.value, {}, { "x-gw-session-id": session });
  await eventually(() => run(second, "warm-up").then((response) => response.status), (status) => status === 200, 5_000);
  expect((await run(first, "agent-run")).status).toBe(200);
  await spentOn(second, key.id, "agent-run", 7);
  expect((await run(second, "agent-run")).status).toBe(200);
  await spentOn(first, key.id, "agent-run", 14);
  // Each node alone counted 7 of 14: only the shared count refuses the third request, on either node.
  for (const node of [first, second]) await expectGatewayError(await run(node, "agent-run"), 402, { errorType: "policy_session_budget_exceeded" });
  for (const node of [first, second]) {
    expect((await sessionsOn(node, key.id)).find((row) => row.session_id === "agent-run")).toMatchObject({ tokens: 14, requests: 2, exceeded: "max_tokens" });
  }
  expect((await run(second, "another-run")).status).toBe(200);
});
