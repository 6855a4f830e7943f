import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { AUTH_CONFIG, bearer, createApiKey } from "../access/access-client";
import { createMcpClient, createVirtualKey, executeTool, toolContent } from "../mcp/support";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { chat, eventually, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

const ALL_TOOLS = ["query_logs", "get_log", "count_logs", "get_metrics", "get_model_rankings", "get_virtual_key_usage", "get_mcp_tool_usage", "semantic_search_logs"];

/** Runs one tool through the agent and answers its result. */
async function runTool(bed: WarpTestbed, name: string, args: Record<string, unknown> = {}) {
  bed.model.script = [{ tools: [{ name, arguments: args }] }, { text: "ok" }];
  const { events } = await chat(bed.gw, { message: `run ${name}` });
  const end = events.find((event) => event.event === "tool_call_end")!;
  expect(end.data).toMatchObject({ name, ok: true });
  return end.data.result as Record<string, unknown>;
}

describe("usage tools", () => {
  let bed: WarpTestbed;
  let mcp: McpHttpServer;
  let key: { id: string; value: string };
  beforeAll(async () => {
    bed = await startWarpTestbed();
    await writeConfig(bed.gw, usableConfig());
    mcp = startMcpHttpServer();
    await createMcpClient(bed.gw, { name: "weather", connection_type: "http", connection_string: mcp.url, tools_to_execute: ["*"], tool_pricing: { get_weather: 0.25, add: 0.5 } });
    key = await createVirtualKey(bed.gw, "checkout", { budgets: [{ max_limit: 10, reset_duration: "1d" }] });
    await createVirtualKey(bed.gw, "idle-key");
    await toolContent(await executeTool(bed.gw, "weather-get_weather", { city: "Paris" }));
    await toolContent(await executeTool(bed.gw, "weather-get_weather", { city: "Rome" }, { "x-gw-vk": key.value }));
    await toolContent(await executeTool(bed.gw, "weather-add", { a: 1, b: 2 }));
    await toolContent(await executeTool(bed.gw, "weather-fail"));
    const client = new OpenAI({ baseURL: `${bed.gw.url}/v1`, apiKey: key.value, maxRetries: 0 });
    for (const prompt of ["one", "two", "three"]) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
  });
  afterAll(async () => {
    await bed.close();
    await mcp.stop();
  });

  test("get_virtual_key_usage: each key's requests, tokens and cost, with its budgets' current usage", async () => {
    const logs = await eventually(
      async () => (await (await bed.gw.admin(`/api/logs?virtual_key_ids=${key.id}`)).json()) as { total: number; logs: Array<{ cost: number | null; total_tokens: number }> },
      (page) => page.total === 3,
    );
    const cost = logs.logs.reduce((sum, log) => sum + (log.cost ?? 0), 0);
    const result = await runTool(bed, "get_virtual_key_usage", { virtual_keys: ["checkout"] });
    expect(result.total_keys).toBe(1);
    const [row] = result.virtual_keys as Array<Record<string, unknown> & { budgets: Array<{ max_limit: number; current_usage: number }> }>;
    expect(row).toMatchObject({ id: key.id, name: "checkout", is_active: true, usage: { total_requests: 3, total_tokens: 75, error_count: 0 } });
    expect((row!.usage as { total_cost: number }).total_cost).toBeCloseTo(cost, 10);
    expect(row!.budgets).toHaveLength(1);
    expect(row!.budgets[0]!.max_limit).toBe(10);
    expect(row!.budgets[0]!.current_usage).toBeCloseTo(cost, 10);

    const every = await runTool(bed, "get_virtual_key_usage");
    expect((every.virtual_keys as Array<{ name: string; usage: { total_requests: number } }>).map((entry) => [entry.name, entry.usage.total_requests])).toEqual([
      ["checkout", 3],
      ["idle-key", 0],
    ]);
  });

  test("get_mcp_tool_usage: calls, successes, errors and cost per tool", async () => {
    const result = await runTool(bed, "get_mcp_tool_usage");
    const tools = (result.tools as Array<Record<string, unknown>>).toSorted((a, b) => String(a.tool_name).localeCompare(String(b.tool_name)));
    expect(tools.map(({ average_latency: _latency, ...row }) => row)).toEqual([
      { tool_name: "add", server_label: "weather", calls: 1, successes: 1, errors: 0, total_cost: 0.5 },
      { tool_name: "fail", server_label: "weather", calls: 1, successes: 0, errors: 1, total_cost: 0 },
      { tool_name: "get_weather", server_label: "weather", calls: 2, successes: 2, errors: 0, total_cost: 0.5 },
    ]);
    expect((result.tools as Array<{ tool_name: string }>)[0]!.tool_name).toBe("get_weather");
    const failures = await runTool(bed, "get_mcp_tool_usage", { status: ["error"] });
    expect((failures.tools as Array<{ tool_name: string }>).map((row) => row.tool_name)).toEqual(["fail"]);
  });
});

describe("the tools offered follow the caller's permissions over the telemetry they read", () => {
  let bed: WarpTestbed;
  beforeAll(async () => {
    bed = await startWarpTestbed({ edition: "enterprise", auth: AUTH_CONFIG });
    await writeConfig(bed.gw, usableConfig());
  });
  afterAll(() => bed.close());

  const cases: Array<[string, string[], string[]]> = [
    ["Warp:Create alone: no tool", [], []],
    ["with Logs:View: the log tools", ["Logs:View"], ["query_logs", "get_log", "count_logs", "get_metrics", "get_model_rankings", "semantic_search_logs"]],
    ["with VirtualKeys:View and MCPLogs:View: their usage tools", ["VirtualKeys:View", "MCPLogs:View"], ["get_virtual_key_usage", "get_mcp_tool_usage"]],
  ];
  for (const [label, extra, offered] of cases) {
    test(label, async () => {
      const token = await createApiKey(bed.gw, `caller-${extra.join("-") || "none"}`, ["Warp:Create", ...extra]);
      bed.model.chats.length = 0;
      const { response } = await chat(bed.gw, { message: "what can you see?" }, bearer(token));
      expect(response.status).toBe(200);
      expect(bed.model.chats[0]!.tools.toSorted()).toEqual(offered.toSorted());
    });
  }

  test("the local admin gets every tool", async () => {
    bed.model.chats.length = 0;
    await chat(bed.gw, { message: "everything" });
    expect(bed.model.chats[0]!.tools.toSorted()).toEqual(ALL_TOOLS.toSorted());
  });

  test("asking to chat needs Warp:Create", async () => {
    const token = await createApiKey(bed.gw, "viewer-only", ["Warp:View", "Logs:View"]);
    expect((await chat(bed.gw, { message: "hi" }, bearer(token))).response.status).toBe(403);
  });
});
