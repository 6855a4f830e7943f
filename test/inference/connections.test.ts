import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway } from "../../src/app";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
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

describe("server.max_request_body_mb", () => {
  test("a body declared over the limit is a 413 with the gateway's error body; one under it is served", async () => {
    const limited = await startGateway({ server: { max_request_body_mb: 1 }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl } } } });
    try {
      const chat = (content: string) =>
        fetch(`${limited.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }) });
      const sent = upstream.requests.length;
      const refused = await expectGatewayError(await chat("x".repeat(2 * 2 ** 20)), 413, { errorType: "caller_request_too_large", param: "body" });
      expect(refused.error.message).toContain("server.max_request_body_mb");
      expect(upstream.requests.length).toBe(sent);
      expect((await chat("x".repeat(900_000))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
