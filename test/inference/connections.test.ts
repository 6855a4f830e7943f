import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../../src/app";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({
    server: { idle_timeout_seconds: 1 },
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream", use_for_batch_api: true }], network_config: { base_url: upstream.baseUrl, default_request_timeout_in_seconds: 10 } } },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

describe("client connections", () => {
  // A POST whose body Bun has read is not cut; a GET relayed to a slow upstream was.
  test("a GET waiting on its upstream longer than the idle timeout still receives the upstream's answer", async () => {
    // Bun checks idle sockets every 4 s: an idle timeout of 1 s cuts a silent request within 8 s.
    upstream.faults.push({ kind: "delay", ms: 9_000 });
    const response = await fetch(`${gw.url}/v1/batches`, { headers: { "x-gw-provider": "openai" } });
    // The mock lists no batches: its own 404 comes back, relayed, after the full wait.
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("mock has no route /v1/batches");
  }, 15_000);

  test("a second gateway on a port already taken refuses to start instead of sharing its traffic", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-port-"));
    const second = await createGateway({ config: { setup_token: "second" }, databaseUrl: `file:${join(dir, "gateway.db")}`, env: { ...process.env, GATEWAY_ENCRYPTION_KEY: "test-encryption-key" } });
    try {
      expect(() => second.listen(Number(new URL(gw.url).port), "127.0.0.1")).toThrow();
      expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    } finally {
      await second.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
