import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GatewayConfig } from "../../src/config/schema";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, startLibsqlServer } from "../support/libsql-server";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, executeTool, FAST_MCP } from "./support";

let gw: TestGateway;
let servers: McpHttpServer[];

beforeAll(async () => {
  servers = [startMcpHttpServer(), startMcpHttpServer()];
  // On a libSQL server a call's log entry takes a round trip before the call reaches its
  // connection: long enough for a move to retire the connection the call was resolved to.
  gw = await startGateway({ mcp: FAST_MCP } as GatewayConfig, LIBSQL_SERVER_BINARY ? { databaseServer: await startLibsqlServer() } : undefined);
});
afterAll(async () => {
  await gw.close();
  await Promise.all(servers.map((server) => server.stop()));
});

test("calls made while a client moves between servers all succeed and are all logged: none reaches the connection being retired", async () => {
  const client = await createMcpClient(gw, { name: "moving", connection_type: "http", connection_string: servers[0]!.url, tools_to_execute: ["*"] });
  let moving = true;
  const answers: Array<{ status: number; text: string }> = [];
  const caller = async () => {
    while (moving) {
      const response = await executeTool(gw, "moving-add", { a: 2, b: 3 });
      answers.push({ status: response.status, text: await response.text() });
    }
  };
  const callers = Array.from({ length: 8 }, caller);
  for (let move = 1; move <= 6; move++) {
    const moved = await gw.admin(`/api/mcp/client/${client.id}`, { method: "PUT", json: { connection_string: servers[move % 2]!.url } });
    expect(moved.status).toBe(200);
  }
  moving = false;
  await Promise.all(callers);
  expect(answers.length).toBeGreaterThan(8);
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  expect(servers.every((server) => server.calls.some((call) => call.name === "add"))).toBe(true);
  // Eight callers at once keep the database's one writer busy: every call still has its log row, completed.
  const logged = (await (await gw.admin("/api/mcp-logs?status=success&limit=1")).json()) as { total: number };
  expect(logged.total).toBe(answers.length);
});
