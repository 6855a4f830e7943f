import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

interface SlowClient {
  /** Everything the gateway sent back. */
  received(): string;
  /** Resolves when the gateway closes the connection. */
  closed: Promise<void>;
  stop(): void;
}

/** A client that sends a request's headers, then its body one byte every `everyMs`, never finishing. */
async function trickle(gw: TestGateway, path: string, everyMs: number): Promise<SlowClient> {
  const { hostname, port } = new URL(gw.url);
  let text = "";
  const closed = Promise.withResolvers<void>();
  const socket: Socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data: (_, chunk) => void (text += chunk.toString()),
      close: () => closed.resolve(),
      error: () => closed.resolve(),
    },
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nX-Gateway-Setup-Token: test-setup-token\r\n\r\n{"model":"openai/gpt-4o-mini","messages":[`);
  const timer = setInterval(() => socket.write(" "), everyMs);
  void closed.promise.then(() => clearInterval(timer));
  return { received: () => text, closed: closed.promise, stop: () => (clearInterval(timer), socket.end()) };
}

describe("a request body has server.body_timeout_seconds to arrive in full", () => {
  let upstream: MockOpenAI;
  let gw: TestGateway;
  beforeAll(async () => {
    upstream = startMockOpenAI();
    gw = await startGateway({ server: { body_timeout_seconds: 1 }, providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  test("50 clients trickling their bodies a byte every 200 ms each get a 408 and their connection closed, though they never fell silent", async () => {
    const started = performance.now();
    const clients = await Promise.all(Array.from({ length: 50 }, (_, index) => trickle(gw, index % 2 === 0 ? "/v1/chat/completions" : "/api/governance/virtual-keys", 200)));
    try {
      await Promise.all(clients.map((client) => client.closed));
      // The idle timeout (30 s) never fired: every client was refused by the body deadline.
      expect(performance.now() - started).toBeLessThan(10_000);
      for (const client of clients) {
        expect(client.received()).toStartWith("HTTP/1.1 408");
        expect(client.received()).toContain("caller_request_timeout");
        expect(client.received()).toContain("server.body_timeout_seconds");
      }
      // The gateway serves on.
      expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    } finally {
      for (const client of clients) client.stop();
    }
  });

  test("a body that arrives in time is served", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "in time" }] }) });
    expect(response.status).toBe(200);
  });
});
