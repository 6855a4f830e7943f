import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import OpenAI from "openai";
import { CHANGE_CHECK_MS } from "../../src/db/table-changes";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

const METRICS_TOKEN = "scrape-me-0123456789";
const CHAT = { model: "openai/gpt-4o-mini", messages: [{ role: "user" as const, content: "still there?" }] };

describe.skipIf(!LIBSQL_SERVER_BINARY)("while the libSQL server is out of reach", () => {
  let upstream: MockOpenAI;
  let database: LibsqlServer;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = startMockOpenAI();
    database = await startLibsqlServer();
    gw = await startGateway(
      { telemetry: { metrics_token: METRICS_TOKEN }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } },
      { databaseServer: database },
    );
    await database.down();
  });
  afterAll(async () => {
    await database.up();
    await gw.close();
    upstream.stop();
  });

  test("inference goes on: its configuration is in memory", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    expect((await client.chat.completions.create(CHAT)).choices[0]?.message.content).toContain("still there?");
  });

  test.each([
    ["GET", "/api/providers", undefined],
    ["GET", "/api/logs", undefined],
    ["POST", "/api/governance/virtual-keys", { name: "during-outage" }],
    ["POST", "/v1/async/chat/completions", CHAT],
  ])("%s %s is a 503 the client may retry, not a 500", async (method, path, json) => {
    const response = await gw.admin(path, { method, json });
    expect(response.headers.get("retry-after")).toBe("1");
    await expectGatewayError(response, 503, { errorType: "gateway_database_unavailable" });
  });

  test("a refused submission is not a write tried again: the retry count stays at zero", async () => {
    await expectGatewayError(await gw.admin("/v1/async/chat/completions", { method: "POST", json: CHAT }), 503, { errorType: "gateway_database_unavailable" });
    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    expect(valueOf(metrics, "gateway_actor_write_retries_total")).toBe(0);
  });

  test("each periodic task logs the outage once, and once more when it works again", async () => {
    const logged: string[] = [];
    const spy = spyOn(console, "error").mockImplementation((...parts: unknown[]) => void logged.push(parts.map(String).join(" ")));
    try {
      const streakStarts = () => logged.filter((line) => line.includes("failed (not logged again until it works)"));
      const changeChecks = () => streakStarts().filter((line) => line.startsWith("checking providers"));
      await eventually(async () => changeChecks().length, (count) => count > 0);
      // Three more runs of every once-a-second task, none of which may log again.
      await Bun.sleep(3 * CHANGE_CHECK_MS + 200);
      expect(changeChecks()).toHaveLength(1);
      const tasks = streakStarts().map((line) => line.slice(0, line.indexOf(" failed")));
      expect(tasks).toContain("governance: saving usage counters");
      expect(new Set(tasks).size).toBe(tasks.length);

      await database.up();
      const recovered = await eventually(async () => logged.filter((line) => line.startsWith("checking providers") && line.includes("works again")), (lines) => lines.length > 0);
      expect(Number(recovered[0]!.match(/after (\d+) failed runs/)?.[1])).toBeGreaterThanOrEqual(4);
    } finally {
      spy.mockRestore();
      await database.down();
    }
  }, 15_000);

  test("once it is back, the same calls succeed", async () => {
    await database.up();
    expect((await gw.admin("/api/providers")).status).toBe(200);
    expect((await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "after-outage" } })).status).toBe(201);
    await database.down();
  });
});
