import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { startMcpSseServer } from "../support/mcp-sse-server";
import { STDIO_SERVER_PATH } from "../support/mcp-stdio-server";
import { type ClientView, clientWhen, createMcpClient, executeTool, FAST_MCP, listClients, startMcpGateway, toolContent } from "./support";

const HEADER_SECRET = "Bearer upstream-mcp-secret-value-0042";

let gw: TestGateway;
let upstream: McpHttpServer;

beforeAll(async () => {
  upstream = startMcpHttpServer({ requireHeader: { name: "authorization", accepted: () => [HEADER_SECRET] } });
  gw = await startMcpGateway({ mcp: FAST_MCP });
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

describe("MCP clients over Streamable HTTP", () => {
  test("a created client connects with its headers and shows its state and discovered tools; the header value is redacted", async () => {
    const created = await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: upstream.url, headers: { authorization: HEADER_SECRET }, tools_to_execute: ["*"], tool_pricing: { get_weather: 0.002 } });
    expect(created.state).toBe("connected");
    expect(created.tools.map((tool) => tool.name).sort()).toEqual(["add", "fail", "get_weather"]);
    expect(created.tools.find((tool) => tool.name === "get_weather")!.input_schema).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
    expect(created.headers.authorization).not.toBe(HEADER_SECRET);
    expect(created.headers.authorization).toEndWith("0042");
    expect(upstream.requestHeaders.at(-1)!.get("authorization")).toBe(HEADER_SECRET);
    const listed = await gw.admin("/api/mcp/clients");
    expect(await listed.text()).not.toContain(HEADER_SECRET);
  });

  test("header values are encrypted at rest", async () => {
    const database = createClient({ url: gw.databaseUrl });
    try {
      const rows = await database.execute("SELECT * FROM mcp_clients");
      expect(rows.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows.rows)).not.toContain("upstream-mcp-secret-value");
    } finally {
      database.close();
    }
  });

  test("an upstream that refuses the headers leaves the client in error, with the reason", async () => {
    const created = await createMcpClient(gw, { name: "weather_wrong_key", connection_type: "http", connection_string: upstream.url, headers: { authorization: "Bearer wrong" } });
    expect(created.state).toBe("error");
    expect(created.last_error).toContain("HTTP 401");
    expect(created.tools).toEqual([]);
  });

  test("PUT changes tools and pricing; a redacted header written back keeps the stored value", async () => {
    const [client] = (await listClients(gw)).filter((entry) => entry.name === "weather");
    const before = upstream.requestHeaders.length;
    const response = await gw.admin(`/api/mcp/client/${client!.id}`, { method: "PUT", json: { tools_to_execute: ["get_weather", "add"], tools_to_auto_execute: ["get_weather"], headers: client!.headers } });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as ClientView;
    expect(updated).toMatchObject({ tools_to_execute: ["get_weather", "add"], tools_to_auto_execute: ["get_weather"], tool_pricing: { get_weather: 0.002 }, state: "connected" });
    // It reconnected with the stored value (the client with the wrong key keeps retrying meanwhile).
    expect(upstream.requestHeaders.slice(before).some((headers) => headers.get("authorization") === HEADER_SECRET)).toBe(true);
  });

  test("bad input is a 400 naming the field", async () => {
    const noUrl = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "nourl", connection_type: "http" } });
    await expectGatewayError(noUrl, 400, { param: "connection_string" });
    const hyphen = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "has-hyphen", connection_type: "http", connection_string: upstream.url } });
    await expectGatewayError(hyphen, 400, { param: "name" });
    const strayAuto = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "stray", connection_type: "http", connection_string: upstream.url, tools_to_execute: ["add"], tools_to_auto_execute: ["get_weather"] } });
    await expectGatewayError(strayAuto, 400, { param: "tools_to_auto_execute[0]" });
    const perUser = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "nokeys", connection_type: "http", connection_string: upstream.url, auth_type: "per_user_headers" } });
    await expectGatewayError(perUser, 400, { param: "per_user_header_keys" });
    const duplicate = await gw.admin("/api/mcp/client", { method: "POST", json: { name: "weather", connection_type: "http", connection_string: upstream.url } });
    await expectGatewayError(duplicate, 409, { param: "name" });
  });

  test("unknown clients are 404 on PUT, DELETE and reconnect", async () => {
    for (const [method, path] of [["PUT", "/api/mcp/client/nope"], ["DELETE", "/api/mcp/client/nope"], ["POST", "/api/mcp/client/nope/reconnect"]] as const) {
      await expectGatewayError(await gw.admin(path, { method, json: method === "PUT" ? {} : undefined }), 404);
    }
  });

  test("when the upstream drops, the client reconnects by itself with backoff once it is back", async () => {
    const [client] = (await listClients(gw)).filter((entry) => entry.name === "weather");
    await upstream.stop();
    const down = await clientWhen(gw, client!.id, (entry) => entry.state !== "connected");
    expect(["disconnected", "error", "connecting"]).toContain(down.state);
    upstream.start();
    const back = await clientWhen(gw, client!.id, (entry) => entry.state === "connected");
    expect(back.tools.length).toBe(3);
  });

  test("DELETE removes the client", async () => {
    const [client] = (await listClients(gw)).filter((entry) => entry.name === "weather_wrong_key");
    const response = await gw.admin(`/api/mcp/client/${client!.id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    expect((await listClients(gw)).map((entry) => entry.name)).not.toContain("weather_wrong_key");
  });
});

describe("MCP clients over stdio", () => {
  let client: ClientView;

  test("the gateway starts the server process with its environment (redacted in responses) and lists its tools", async () => {
    client = await createMcpClient(gw, {
      name: "local",
      connection_type: "stdio",
      stdio_config: { command: process.execPath, args: [STDIO_SERVER_PATH], envs: { TEST_MCP_SECRET: "stdio-env-secret-value-9999" } },
      tools_to_execute: ["*"],
    });
    expect(client.state).toBe("connected");
    expect(client.tools.map((tool) => tool.name)).toContain("process_id");
    expect(client.stdio_config!.envs.TEST_MCP_SECRET).toBe("****9999");
    expect(await toolContent(await executeTool(gw, "local-env_value", { name: "TEST_MCP_SECRET" }))).toBe("stdio-env-secret-value-9999");
  });

  test("POST reconnect starts a fresh server process", async () => {
    const before = await toolContent(await executeTool(gw, "local-process_id"));
    const response = await gw.admin(`/api/mcp/client/${client.id}/reconnect`, { method: "POST" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as ClientView).state).toBe("connected");
    expect(await toolContent(await executeTool(gw, "local-process_id"))).not.toBe(before);
  });

  test("when the server process dies, the call fails and the client comes back with a new process", async () => {
    const before = await toolContent(await executeTool(gw, "local-process_id"));
    await expectGatewayError(await executeTool(gw, "local-crash"), 502, { errorType: "provider_mcp_unreachable" });
    await clientWhen(gw, client.id, (entry) => entry.state === "connected");
    const after = await toolContent(await executeTool(gw, "local-process_id"));
    expect(after).not.toBe(before);
  });
});

describe("MCP clients over SSE", () => {
  test("connects, lists the tools and runs them over the HTTP+SSE transport", async () => {
    const sse = await startMcpSseServer();
    try {
      const client = await createMcpClient(gw, { name: "legacy", connection_type: "sse", connection_string: sse.url, tools_to_execute: ["add"] });
      expect(client.state).toBe("connected");
      expect(client.tools.map((tool) => tool.name).sort()).toEqual(["add", "fail", "get_weather"]);
      expect(await toolContent(await executeTool(gw, "legacy-add", { a: 4, b: 5 }))).toBe("9");
      expect(sse.calls).toEqual([{ name: "add", arguments: { a: 4, b: 5 } }]);
      expect((await gw.admin(`/api/mcp/client/${client.id}`, { method: "DELETE" })).status).toBe(200);
    } finally {
      await sse.stop();
    }
  });
});
