import { afterAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { startLogSinkReceiver } from "../support/log-sink-receiver";
import { startMockOpenAI } from "../support/mock-openai";

const LEASE_MS = 300;
const upstream = startMockOpenAI();
const receiver = startLogSinkReceiver();
const nodes: TestGateway[] = [];
afterAll(async () => {
  // The node that made the database deletes it on close: the other closes first.
  for (const node of nodes.reverse()) await node.close();
  upstream.stop();
  receiver.stop();
});

const config = {
  providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
  log_sinks: [{ type: "http" as const, name: "shared", url: `${receiver.url}/shared`, secret: receiver.secret, batch_size: 2, poll_interval_ms: 50 }],
};

const chat = (node: TestGateway, content: string) => new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const storedIds = async (node: TestGateway) => ((await (await node.admin("/api/logs?limit=1000")).json()) as { logs: Array<{ id: string }> }).logs.map((log) => log.id);
const sinkOn = async (node: TestGateway) => ((await (await node.admin("/api/log-sinks")).json()) as { sinks: Array<{ node: string; delivered_rows: number; lag_rows: number }> }).sinks[0]!;

/** Every row both nodes stored reaches the sink, and none twice. */
async function expectEachRowOnce(node: TestGateway, count: number): Promise<void> {
  const stored = await eventually(() => storedIds(node), (ids) => ids.length === count, 10_000);
  const received = await eventually(async () => receiver.rowsOn("/shared").map((row) => row.id), (ids) => ids.length >= count, 10_000);
  expect(receiver.rejected).toEqual([]);
  expect(received.toSorted()).toEqual(stored.toSorted());
}

test("two nodes on one database deliver each row once, by the node holding the sink's lease; another node takes over once it stops renewing", async () => {
  // The first node's lease clock is the test's: an hour ahead, its lease holds however late a
  // loaded machine renews it; frozen at 0, it stands for a node that died with its actor still running.
  let firstNow = () => Date.now() + 3_600_000;
  const first = await startGateway(config, { runtime: { actorLease: { owner: "node-a", durationMs: LEASE_MS, now: () => firstNow() } } });
  nodes.push(first);
  const second = await startGateway(config, { databaseUrl: first.databaseUrl, runtime: { actorLease: { owner: "node-b", durationMs: LEASE_MS, now: Date.now } } });
  nodes.push(second);

  for (let index = 0; index < 3; index++) {
    await chat(first, `on a ${index}`);
    await chat(second, `on b ${index}`);
  }
  await expectEachRowOnce(second, 6);
  expect(await sinkOn(second)).toMatchObject({ node: "node-a", delivered_rows: 6 });

  firstNow = () => 0;
  await eventually(() => sinkOn(first), (sink) => sink.node === "node-b", 10_000);
  for (let index = 0; index < 3; index++) {
    await chat(first, `after takeover on a ${index}`);
    await chat(second, `after takeover on b ${index}`);
  }
  await expectEachRowOnce(first, 12);
  expect(await eventually(() => sinkOn(first), (sink) => sink.delivered_rows === 12)).toMatchObject({ node: "node-b", delivered_rows: 12, lag_rows: 0 });
}, 90_000);
