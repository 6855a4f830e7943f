import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import type { TestGateway } from "../support/gateway";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { createMcpClient, createVirtualKey, executeTool, startMcpGateway, toolContent } from "./support";

interface McpLog {
  id: string;
  timestamp: string;
  tool_name: string;
  server_label: string;
  status: string;
  arguments: unknown;
  result: string | null;
  latency: number;
  cost: number | null;
  virtual_key_id: string | null;
  llm_request_id: string | null;
}
interface LogPage {
  logs: McpLog[];
  count: number;
  total: number;
  limit: number;
  offset: number;
}
interface Histogram {
  buckets: Array<{ timestamp: string; total_cost: number }>;
  bucket_size_seconds: number;
}

let gw: TestGateway;
let upstream: McpHttpServer;
let keyId: string;
const startedAt = new Date();

async function read<T>(path: string): Promise<T> {
  const response = await gw.admin(path);
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status: 200 });
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  upstream = startMcpHttpServer();
  gw = await startMcpGateway({ edition: "enterprise" });
  await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: upstream.url, tools_to_execute: ["*"], tool_pricing: { get_weather: 0.25, add: 0.5 } });
  const key = await createVirtualKey(gw, "logged");
  keyId = key.id;
  await toolContent(await executeTool(gw, "weather-get_weather", { city: "Paris" }));
  await toolContent(await executeTool(gw, "weather-get_weather", { city: "Rome" }, { "x-gw-vk": key.value }));
  await toolContent(await executeTool(gw, "weather-add", { a: 1, b: 2 }));
  await toolContent(await executeTool(gw, "weather-fail"));
});
afterAll(async () => {
  await gw.close();
  await upstream.stop();
});

describe("MCP logs: every tool call is logged", () => {
  test("tool name, server label, status, arguments, result, latency, cost and virtual key", async () => {
    const page = await read<LogPage>("/api/mcp-logs?sort_by=timestamp&order=asc");
    expect(page.total).toBe(4);
    expect(page.logs.map((log) => [log.tool_name, log.status])).toEqual([
      ["get_weather", "success"],
      ["get_weather", "success"],
      ["add", "success"],
      ["fail", "error"],
    ]);
    const [paris, rome] = page.logs;
    expect(paris).toMatchObject({ server_label: "weather", arguments: { city: "Paris" }, result: "Sunny and 21C in Paris", cost: 0.25, virtual_key_id: null, llm_request_id: null });
    expect(paris!.latency).toBeGreaterThan(0);
    expect(rome!.virtual_key_id).toBe(keyId);
    expect(page.logs[3]!.cost).toBeNull();
  });

  test("filters: tool names, server labels, status, virtual keys, latency, time range and content search", async () => {
    const total = async (query: string) => (await read<LogPage>(`/api/mcp-logs?${query}`)).total;
    expect(await total("tool_names=get_weather")).toBe(2);
    expect(await total("tool_names=add,fail")).toBe(2);
    expect(await total("server_labels=weather")).toBe(4);
    expect(await total("server_labels=other")).toBe(0);
    expect(await total("status=error")).toBe(1);
    expect(await total("status=processing")).toBe(0);
    expect(await total(`virtual_key_ids=${keyId}`)).toBe(1);
    expect(await total("min_latency=0&max_latency=60000")).toBe(4);
    expect(await total("min_latency=60000")).toBe(0);
    expect(await total(`start_time=${encodeURIComponent(startedAt.toISOString())}`)).toBe(4);
    expect(await total(`end_time=${encodeURIComponent(new Date(startedAt.getTime() - 60_000).toISOString())}`)).toBe(0);
    expect(await total("content_search=rome")).toBe(1);
    expect(await total("content_search=on%20purpose")).toBe(1);
  });

  test("pagination: limit and offset over the matching total", async () => {
    const first = await read<LogPage>("/api/mcp-logs?limit=3&order=asc");
    const second = await read<LogPage>("/api/mcp-logs?limit=3&offset=3&order=asc");
    expect([first.count, first.total, second.count, second.total]).toEqual([3, 4, 1, 4]);
    expect(new Set([...first.logs, ...second.logs].map((log) => log.id)).size).toBe(4);
  });

  test("bad filters are a 400 naming the parameter", async () => {
    await expectGatewayError(await gw.admin("/api/mcp-logs?status=done"), 400, { param: "status" });
    await expectGatewayError(await gw.admin("/api/mcp-logs/histogram/cost?start_time=yesterday"), 400, { param: "start_time" });
    // Shaped like a timestamp but no moment (month 13): it used to reach the query as NaN.
    await expectGatewayError(await gw.admin("/api/mcp-logs/histogram/cost?start_time=2026-13-01T00:00:00Z"), 400, { param: "start_time" });
    await expectGatewayError(await gw.admin("/api/mcp-logs?end_time=2026-11-25T10:60:00Z"), 400, { param: "end_time" });
    await expectGatewayError(await gw.admin("/api/mcp-logs/histogram/cost?min_latency=-1"), 400, { param: "min_latency" });
  });
});

describe("GET /api/mcp-logs/histogram/cost (spec 4.7)", () => {
  const range = () => {
    const start = new Date(startedAt.getTime() - 3 * 3_600_000);
    const end = new Date(startedAt.getTime() + 3_600_000);
    return { start, end, query: `start_time=${encodeURIComponent(start.toISOString())}&end_time=${encodeURIComponent(end.toISOString())}` };
  };

  test("buckets sized from the range, every bucket present so a chart has no holes, costs summed", async () => {
    const { start, end, query } = range();
    const histogram = await read<Histogram>(`/api/mcp-logs/histogram/cost?${query}`);
    expect(histogram.bucket_size_seconds).toBe(600);
    const times = histogram.buckets.map((bucket) => Date.parse(bucket.timestamp));
    for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBe(600_000);
    expect(times[0]!).toBeLessThanOrEqual(start.getTime());
    expect(times.at(-1)! + 600_000).toBeGreaterThan(end.getTime());
    // All four calls ran moments ago: one bucket (two, had a bucket boundary passed meanwhile).
    expect(histogram.buckets.filter((bucket) => bucket.total_cost > 0).length).toBeLessThanOrEqual(2);
    expect(histogram.buckets.reduce((sum, bucket) => sum + bucket.total_cost, 0)).toBeCloseTo(1.0, 10);
  });

  test("takes every filter of the log list", async () => {
    const { query } = range();
    const sum = async (filters: string) => (await read<Histogram>(`/api/mcp-logs/histogram/cost?${query}&${filters}`)).buckets.reduce((total, bucket) => total + bucket.total_cost, 0);
    expect(await sum("tool_names=add")).toBeCloseTo(0.5, 10);
    expect(await sum(`virtual_key_ids=${keyId}`)).toBeCloseTo(0.25, 10);
    expect(await sum("status=error")).toBe(0);
    expect(await sum("content_search=paris")).toBeCloseTo(0.25, 10);
    expect(await sum("server_labels=weather&min_latency=0&max_latency=60000&llm_request_ids=none")).toBe(0);
  });

  test("a wider range picks wider buckets", async () => {
    const start = new Date(startedAt.getTime() - 10 * 86_400_000).toISOString();
    const histogram = await read<Histogram>(`/api/mcp-logs/histogram/cost?start_time=${encodeURIComponent(start)}`);
    expect(histogram.bucket_size_seconds).toBe(86_400);
    expect(histogram.buckets.length).toBeGreaterThanOrEqual(10);
  });

  test("needs MCPLogs:View", async () => {
    const allowed = await createApiKey(gw, "mcp-logs-reader", ["MCPLogs:View"]);
    const denied = await createApiKey(gw, "mcp-only", ["MCP:View"]);
    expect((await call(gw, "/api/mcp-logs/histogram/cost", { headers: bearer(allowed) })).status).toBe(200);
    await expectGatewayError(await call(gw, "/api/mcp-logs/histogram/cost", { headers: bearer(denied) }), 403);
    await expectGatewayError(await call(gw, "/api/mcp-logs", { headers: bearer(denied) }), 403);
  });
});
