import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";
import { eventually, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

interface IndexStatus {
  vectors_in_space: number;
  live_index: { indexed: number; queued: number };
}

let bed: WarpTestbed;
let second: TestGateway;

beforeAll(async () => {
  bed = await startWarpTestbed();
  second = await startGateway({}, { databaseUrl: bed.gw.databaseUrl });
});
afterAll(async () => {
  await second.close();
  await bed.close();
});

const chatOn = (node: TestGateway, content: string) =>
  new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const indexStatusOf = async (node: TestGateway) => (await (await node.admin("/api/warp/log-index/backfill/status")).json()) as IndexStatus;
const logCountOf = async (node: TestGateway) => ((await (await node.admin("/api/logs")).json()) as { total: number }).total;

test("Warp configured on one node makes the other index its new logs, though it had found Warp unconfigured", async () => {
  // The providers the testbed registered on the first node reach the second within a second.
  await eventually(
    () => chatOn(second, "refund before the agent is configured").then(() => true, () => false),
    (answered) => answered,
  );
  // The second node's indexer has read the configuration, found it unset, and stops queueing logs.
  await eventually(
    () => logCountOf(second),
    (total) => total >= 1,
  );
  expect((await indexStatusOf(second)).live_index.indexed).toBe(0);

  await writeConfig(bed.gw, usableConfig());
  const status = await eventually(
    async () => {
      await chatOn(second, "refund for order 7");
      return indexStatusOf(second);
    },
    (seen) => seen.live_index.indexed >= 1,
  );
  expect(status.live_index.indexed).toBeGreaterThanOrEqual(1);
  expect(status.vectors_in_space).toBeGreaterThanOrEqual(status.live_index.indexed);
}, 15_000);
