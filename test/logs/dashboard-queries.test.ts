import { afterAll, beforeAll, expect, test } from "bun:test";
import { ON_LIBSQL_SERVER, startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, recordFacts } from "./seed-logs";

let gw: TestGateway;
/** Rankings over every seeded log (one every 23 minutes), read row by row: a latency bound keeps the hourly table out. */
const EVERY_LOG_RANKED = "/api/logs/rankings?period=100M&min_latency=0";

beforeAll(async () => {
  gw = await startGateway();
  // 100,000 logs: 20,000 made-up requests, each five times over. The query must outlast many
  // health checks, whatever this machine's speed.
  const facts = generateFacts(20_000, new Date());
  const copies = [0, 1, 2, 3, 4].flatMap((copy) => facts.map((fact) => ({ ...fact, id: `${fact.id}-${copy}`, parentRequestId: fact.parentRequestId && `${fact.parentRequestId}-${copy}` })));
  await recordFacts(gw.databaseUrl, copies, { queueCapacity: copies.length });
  // The reader thread starts with the first query: a warm one measures the query alone.
  await (await gw.admin(EVERY_LOG_RANKED)).arrayBuffer();
}, 30_000);
afterAll(() => gw.close());

// The embedded driver's synchronous queries; a libSQL server's are requests over the network anyway.
test.skipIf(ON_LIBSQL_SERVER)("a dashboard query over many logs does not hold up the requests served meanwhile", async () => {
  let statsDone = false;
  const stats = gw.admin(EVERY_LOG_RANKED).then(async (response) => {
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    statsDone = true;
  });
  // The embedded driver runs a query synchronously: on the main thread it would freeze the
  // event loop, and no /health could be answered until the statistics were.
  let answeredDuring = 0;
  while (!statsDone) {
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(200);
    if (!statsDone) answeredDuring++;
  }
  await stats;
  expect(answeredDuring).toBeGreaterThanOrEqual(3);
});
