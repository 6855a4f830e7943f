import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";
import { loggedCases } from "./logged-cases";

const METRICS_TOKEN = "scrape-me-0123456789";


describe.skipIf(!LIBSQL_SERVER_BINARY)("request logs on a libSQL server that goes away for a while", () => {
  let upstream: MockOpenAI;
  let database: LibsqlServer;
  let gw: TestGateway;
  let cases: ReturnType<typeof loggedCases>;
  const logQueue = async () => {
    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    return { retries: valueOf(metrics, "gateway_log_write_retries_total"), failed: valueOf(metrics, "gateway_log_write_failed_total") };
  };

  beforeAll(async () => {
    upstream = startMockOpenAI();
    database = await startLibsqlServer();
    gw = await startGateway(
      { telemetry: { metrics_token: METRICS_TOKEN }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
      { databaseServer: database },
    );
    cases = loggedCases(gw);
    await cases.warmUp();
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  test("requests are still answered; their logs are tried again and all stored once the server is back", async () => {
    await database.down();
    expect((await fetch(`${gw.url}/health`)).status).toBe(503);
    for (const word of ["one", "two", "three"]) expect((await cases.chat(word, "outage")).choices[0]?.message.content).toContain(word);
    // Their batch went to a server that was not there, and waits to be tried again.
    expect((await eventually(logQueue, ({ retries }) => (retries ?? 0) >= 1, 5_000)).retries).toBeGreaterThanOrEqual(1);

    await database.up();
    expect(await cases.promptsOf(await cases.logged("outage", 3, 15_000))).toEqual(["one", "three", "two"]);
    expect((await logQueue()).failed).toBe(0);
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});
