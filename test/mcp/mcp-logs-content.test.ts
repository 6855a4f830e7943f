import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { text } from "../support/mcp-tools";
import { createMcpClient, executeTool, startMcpGateway, toolContent } from "./support";

const SCREENSHOT = Buffer.from(Array.from({ length: 60_000 }, (_, index) => (index * 7) % 256)).toString("base64");

let gw: TestGateway;
let upstream: McpHttpServer;
let screenshotAnswer: string;

beforeAll(async () => {
  upstream = startMcpHttpServer({
    tools: {
      login: { description: "Signs in to the desk", properties: { username: { type: "string" }, password: { type: "string" } }, run: ({ username }) => text(`signed in as ${String(username)}`) },
      screenshot: { description: "Captures the screen", run: () => ({ content: [{ type: "text", text: "captured the harbour desk" }, { type: "image", data: SCREENSHOT, mimeType: "image/png" }] }) },
    },
  });
  gw = await startMcpGateway({ edition: "enterprise" });
  await createMcpClient(gw, { name: "desk", connection_type: "http", connection_string: upstream.url, tools_to_execute: ["*"] });
  await toolContent(await executeTool(gw, "desk-login", { username: "ana", password: "hunter2-do-not-log" }));
  screenshotAnswer = await toolContent(await executeTool(gw, "desk-screenshot"));
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

type McpLog = { tool_name: string; arguments: Record<string, unknown> | null; result: string | null };
const logOf = async (tool: string) => {
  const { logs } = (await (await gw.admin(`/api/mcp-logs?tool_names=${tool}`)).json()) as { logs: McpLog[] };
  return logs[0]!;
};

test("MCP logs redact credential arguments, as request logs do", async () => {
  expect(upstream.calls.find((call) => call.name === "login")!.arguments.password).toBe("hunter2-do-not-log");
  expect(await logOf("login")).toMatchObject({ arguments: { username: "ana", password: "[REDACTED]" }, result: "signed in as ana" });
});

test("a tool's image is answered whole but logged as its length", async () => {
  expect(screenshotAnswer).toContain(SCREENSHOT);
  const { result } = await logOf("screenshot");
  expect(result).toBe(`captured the harbour desk\n${JSON.stringify({ type: "image", data: `[base64, ${SCREENSHOT.length} characters not logged]`, mimeType: "image/png" })}`);
});
