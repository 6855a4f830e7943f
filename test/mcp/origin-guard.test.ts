import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request } from "node:http";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, startMcpGateway } from "./support";

let gw: TestGateway;
let open: TestGateway;
let weather: McpHttpServer;

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "rebind", version: "1" } } });
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "weather-get_weather", arguments: { city: "Berlin" } } });

/** A POST to /mcp with the Host and Origin a browser sends after DNS rebinding (fetch would not let us set Host). */
function post(gateway: TestGateway, body: string, headers: Record<string, string>): Promise<Response> {
  const url = new URL(`${gateway.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: res.headers as Record<string, string> })));
    });
    req.on("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  weather = startMcpHttpServer();
  gw = await startMcpGateway();
  open = await startMcpGateway({ mcp: { allowed_hosts: ["gateway.internal"], allowed_origins: ["https://tools.example.com"] } });
  for (const gateway of [gw, open]) await createMcpClient(gateway, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"] });
});
afterAll(async () => {
  await gw.close();
  await open.close();
  await weather.stop();
});

describe("/mcp refuses DNS rebinding", () => {
  test("a rebinding Host (and Origin) gets 403 before any tool runs", async () => {
    const before = weather.calls.length;
    const response = await post(gw, CALL, { host: "rebind.attacker.test", origin: "http://rebind.attacker.test" });
    await expectGatewayError(response, 403, { errorType: "caller_mcp_host_not_allowed" });
    expect(weather.calls.length).toBe(before);
  });

  test("a loopback Host with a foreign Origin gets 403", async () => {
    const port = new URL(gw.url).port;
    await expectGatewayError(await post(gw, INITIALIZE, { host: `127.0.0.1:${port}`, origin: "http://rebind.attacker.test" }), 403, { errorType: "caller_mcp_origin_not_allowed" });
  });

  test("loopback names are accepted on a loopback listener, with or without a loopback Origin", async () => {
    const port = new URL(gw.url).port;
    const cases: Record<string, string>[] = [{ host: `localhost:${port}` }, { host: `127.0.0.1:${port}`, origin: `http://localhost:5173` }, { host: `[::1]:${port}` }];
    for (const headers of cases) {
      const response = await post(gw, INITIALIZE, headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 200 });
    }
  });

  test("configured hosts and origins replace the loopback default", async () => {
    await expectGatewayError(await post(open, INITIALIZE, { host: "localhost" }), 403, { errorType: "caller_mcp_host_not_allowed" });
    expect((await post(open, INITIALIZE, { host: "gateway.internal" })).status).toBe(200);
    expect((await post(open, INITIALIZE, { host: "gateway.internal", origin: "https://tools.example.com" })).status).toBe(200);
    await expectGatewayError(await post(open, INITIALIZE, { host: "gateway.internal", origin: "https://other.example.com" }), 403, { errorType: "caller_mcp_origin_not_allowed" });
  });
});
