import { afterAll, beforeAll, expect, test } from "bun:test";
import { chat, createVirtualKey, openAIProvider } from "../governance/support";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type ReplicaDeployment, startReplicaNodes } from "../support/replicas";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

/**
 * How many times each node's request log tries its batch again before the primary comes back:
 * its waits grow from 100 ms to 2 s, so the outage spans several sync intervals and the rows
 * wait through retries, as in a long outage, without the test waiting out a fixed time.
 */
const RETRIES_DURING_OUTAGE = 5;

let upstream: MockOpenAI;
let deployment: ReplicaDeployment;
let eu: TestGateway;
let us: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  deployment = await startReplicaNodes({ enforce_auth_on_inference: true, telemetry: { metrics_allowlist: ["127.0.0.1"] }, providers: { openai: openAIProvider(upstream) } }, ["eu", "us"]);
  [eu, us] = deployment.nodes as [TestGateway, TestGateway];
});
afterAll(async () => {
  await deployment?.primary.up();
  await deployment?.close();
  upstream.stop();
});

const health = async (node: TestGateway) => {
  const response = await fetch(`${node.url}/health`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const logRetries = async (node: TestGateway) => valueOf(parsePrometheus(await (await fetch(`${node.url}/metrics`)).text()), "gateway_log_write_retries_total") ?? 0;
const logTotal = async (node: TestGateway, keyId: string) => ((await (await node.admin(`/api/logs?virtual_key_ids=${keyId}`)).json()) as { total: number }).total;

test("the primary away while log writes are retried: inference goes on, management writes answer 503, and afterwards no log row is lost and both nodes catch up", async () => {
  const key = await createVirtualKey(eu, { name: "through-the-outage", rate_limit: { request_max_limit: 1000, request_reset_duration: "1h" } });
  await eventually(
    async () => (await chat(us, key.value)).status,
    (status) => status === 200,
    5_000,
  );
  let served = 1;

  const retriesBefore = await Promise.all([eu, us].map(logRetries));
  await deployment.primary.down();
  for (const node of [eu, us]) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat(node, key.value)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    served += answers.length;
    const refused = await node.admin("/api/governance/virtual-keys", { method: "POST", json: { name: `during-outage-${node.url}` } });
    expect(refused.headers.get("retry-after")).toBeTruthy();
    await expectGatewayError(refused, 503, { errorType: "gateway_database_unavailable" });
    // Reads are local: the replica answers them.
    expect((await node.admin(`/api/governance/virtual-keys/${key.id}`)).status).toBe(200);
    // Within a sync interval, the node finds its primary gone.
    const degraded = await eventually(() => health(node), (answer) => answer.status === 503, 5_000);
    expect(degraded).toMatchObject({ status: 503, body: { status: "degraded", primary_reachable: false, database_mode: "embedded_replica" } });
  }
  for (const [index, node] of [eu, us].entries()) {
    const retries = await eventually(() => logRetries(node), (count) => count >= retriesBefore[index]! + RETRIES_DURING_OUTAGE, 10_000);
    expect(retries).toBeGreaterThanOrEqual(retriesBefore[index]! + RETRIES_DURING_OUTAGE);
  }
  for (const node of [eu, us]) {
    expect((await chat(node, key.value)).status).toBe(200);
    served++;
  }
  await deployment.primary.up();

  for (const node of [eu, us]) {
    const back = await eventually(() => health(node), (answer) => answer.status === 200, 10_000);
    expect(back.body).toMatchObject({ status: "ok", primary_reachable: true });
  }
  // Every row queued while the primary was away reaches it, and both replicas.
  const totals = await eventually(
    async () => [await logTotal(eu, key.id), await logTotal(us, key.id)],
    (counts) => counts.every((count) => count === served),
    15_000,
  );
  expect(totals).toEqual([served, served]);
  // A write on one node after the outage reaches the other without a restart.
  const after = await createVirtualKey(us, { name: "after-the-outage" });
  const seenOnEu = await eventually(
    async () => (await chat(eu, after.value)).status,
    (status) => status === 200,
    5_000,
  );
  expect(seenOnEu).toBe(200);
}, 60_000);
