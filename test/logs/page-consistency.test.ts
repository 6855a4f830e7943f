import { afterAll, beforeAll, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, recordFacts } from "./seed-logs";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

test("a page of logs and its total agree while new logs keep landing", async () => {
  const facts = generateFacts(1_000, new Date());
  // Ten-row batches: a commit lands every few hundred microseconds while the dashboard reads.
  const recording = recordFacts(gw.databaseUrl, facts, { batchSize: 10, maxBatchSize: 10, flushIntervalMs: 1 }).then(() => (recorded = true));
  let recorded = false;
  const disagreements: Array<{ total: number; rows: number }> = [];
  let reads = 0;
  while (!recorded) {
    const page = (await (await gw.admin("/api/logs?limit=1000&period=30d")).json()) as { total: number; logs: unknown[] };
    reads++;
    if (page.logs.length !== page.total) disagreements.push({ total: page.total, rows: page.logs.length });
  }
  await recording;
  expect(reads).toBeGreaterThan(10);
  expect(disagreements).toEqual([]);
}, 30_000);
