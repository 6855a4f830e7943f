import { afterAll, beforeAll, expect, test } from "bun:test";
import { ON_LIBSQL_SERVER, startGateway, type TestGateway } from "../support/gateway";
import { generateFacts, recordFacts } from "./seed-logs";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
  await recordFacts(gw.databaseUrl, generateFacts(20_000, new Date()));
}, 30_000);
afterAll(() => gw.close());

// The embedded driver's synchronous queries; a libSQL server's are requests over the network anyway.
test.skipIf(ON_LIBSQL_SERVER)("a dashboard query over many logs does not hold up the requests served meanwhile", async () => {
  let statsDone = false;
  const stats = gw.admin("/api/logs/stats").then(async (response) => {
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
