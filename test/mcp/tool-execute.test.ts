import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, createVirtualKey, executeTool, startMcpGateway, toolContent } from "./support";

let gw: TestGateway;
let weather: McpHttpServer;
let maths: McpHttpServer;

beforeAll(async () => {
  weather = startMcpHttpServer();
  maths = startMcpHttpServer();
  gw = await startMcpGateway();
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["get_weather", "fail"] });
  await createMcpClient(gw, { name: "maths", connection_type: "http", connection_string: maths.url, tools_to_execute: ["*"] });
});
afterAll(async () => {
  await gw.close();
  await weather.stop();
  await maths.stop();
});

describe("POST /v1/mcp/tool/execute", () => {
  test("runs an OpenAI-shaped tool call on the client that owns the tool and answers the tool message", async () => {
    const response = await executeTool(gw, "weather-get_weather", { city: "Lisbon" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ role: "tool", tool_call_id: "call_weather-get_weather", content: "Sunny and 21C in Lisbon" });
    expect(weather.calls.at(-1)).toEqual({ name: "get_weather", arguments: { city: "Lisbon" } });
    expect(await toolContent(await executeTool(gw, "maths-add", { a: 2, b: 40 }))).toBe("42");
    expect(maths.calls.at(-1)).toEqual({ name: "add", arguments: { a: 2, b: 40 } });
  });

  test("a tool's own failure comes back as its content, for the model to read", async () => {
    expect(await toolContent(await executeTool(gw, "weather-fail"))).toBe("the tool failed on purpose");
  });

  test("a tool no client owns is 404; one the client does not allow (tools_to_execute) is 403", async () => {
    await expectGatewayError(await executeTool(gw, "nobody-get_weather"), 404, { errorType: "caller_mcp_tool_not_found" });
    await expectGatewayError(await executeTool(gw, "weather-no_such_tool"), 403);
    await expectGatewayError(await executeTool(gw, "weather-add", { a: 1, b: 2 }), 403, { errorType: "policy_mcp_tool_not_allowed" });
    expect(weather.calls.some((call) => call.name === "add")).toBe(false);
  });

  test("arguments that are not a JSON object are a 400 naming function.arguments", async () => {
    const response = await fetch(`${gw.url}/v1/mcp/tool/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "c1", type: "function", function: { name: "maths-add", arguments: "{not json" } }),
    });
    await expectGatewayError(response, 400, { param: "function.arguments" });
  });

  test("x-gw-mcp-include-clients and x-gw-mcp-include-tools narrow what a request may call; an empty list allows nothing", async () => {
    await expectGatewayError(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-mcp-include-clients": "weather" }), 403);
    expect(await toolContent(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-mcp-include-clients": "weather,maths" }))).toBe("2");
    await expectGatewayError(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-mcp-include-tools": "weather-*" }), 403);
    expect(await toolContent(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-mcp-include-tools": "maths-add" }))).toBe("2");
    await expectGatewayError(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-mcp-include-tools": "" }), 403);
  });
});

describe("virtual keys on /v1/mcp/tool/execute", () => {
  test("a presented virtual key must be valid; its mcp_configs decide which tools it may call", async () => {
    await expectGatewayError(await executeTool(gw, "maths-add", { a: 1, b: 1 }, { "x-gw-vk": "sk-gw-not-a-real-key" }), 401, { errorType: "caller_virtual_key_invalid" });
    const key = await createVirtualKey(gw, "weather-only", { mcp_configs: [{ mcp_client_name: "weather", tools_to_execute: ["get_weather"] }] });
    const asKey = { authorization: `Bearer ${key.value}` };
    expect(await toolContent(await executeTool(gw, "weather-get_weather", { city: "Oslo" }, asKey))).toBe("Sunny and 21C in Oslo");
    await expectGatewayError(await executeTool(gw, "maths-add", { a: 1, b: 1 }, asKey), 403);
    await expectGatewayError(await executeTool(gw, "weather-fail", {}, asKey), 403);
  });

  test("an mcp_configs entry without tools_to_execute, or with an empty one, may call none of that client's tools", async () => {
    for (const weatherConfig of [{ mcp_client_name: "weather" }, { mcp_client_name: "weather", tools_to_execute: [] }]) {
      const key = await createVirtualKey(gw, `no-weather ${weatherConfig.tools_to_execute ? "empty" : "omitted"}`, { mcp_configs: [weatherConfig, { mcp_client_name: "maths", tools_to_execute: ["add"] }] });
      const asKey = { authorization: `Bearer ${key.value}` };
      await expectGatewayError(await executeTool(gw, "weather-get_weather", { city: "Oslo" }, asKey), 403);
      expect(await toolContent(await executeTool(gw, "maths-add", { a: 2, b: 3 }, asKey))).toBe("5");
    }
  });

  test("with enforce_auth_on_inference a virtual key is required", async () => {
    const strict = await startMcpGateway({ enforce_auth_on_inference: true });
    try {
      await expectGatewayError(await executeTool(strict, "maths-add", { a: 1, b: 1 }), 401, { errorType: "caller_virtual_key_required" });
    } finally {
      await strict.close();
    }
  });
});
