import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { eventually } from "../support/eventually";
import { postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from "../support/otlp-receiver";
import { createMcpClient, executeTool, startMcpGateway } from "../mcp/support";

const attribute = (span: { attributes: Array<{ key: string; value: Record<string, unknown> }> }, key: string) => span.attributes.find((entry) => entry.key === key)?.value;

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN_ID = "b7ad6b7169203331";
const METRICS_TOKEN = "metrics-token-for-tests";
const PROVIDERS = (upstream: MockOpenAI) => ({ openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } });

/** Keys the GenAI semantic conventions define for an inference span (gen_ai-spans.md, client inference). */
const GEN_AI_KEYS = ["gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.response.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.finish_reasons", "gen_ai.response.time_to_first_chunk"];

describe("OpenTelemetry traces by the GenAI semantic conventions, OTLP/HTTP protobuf", () => {
  let upstream: MockOpenAI;
  let receiver: OtlpReceiver;
  let spans: OtlpSpan[];
  let virtualKeyId: string;

  beforeAll(async () => {
    upstream = startMockOpenAI();
    receiver = startOtlpReceiver();
    process.env.OTLP_TEST_TOKEN = "Bearer collector-secret";
    const gw = await startGateway({
      telemetry: { otlp: { endpoint: receiver.url, headers: { authorization: "env.OTLP_TEST_TOKEN" }, service_name: "gateway-under-test" } },
      providers: PROVIDERS(upstream),
    });
    const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "traced" } });
    const { virtual_key: key } = (await created.json()) as { virtual_key: { id: string; value: string } };
    virtualKeyId = key.id;
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`, "x-gw-vk": key.value } });
    const stream = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], stream: true, stream_options: { include_usage: true } });
    for await (const _chunk of stream);
    upstream.faults.push({ kind: "status", status: 400, message: "rejected by the mock" });
    await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "fails" }] });
    // Stopping flushes the exporter's queue.
    await gw.close();
    spans = receiver.spans();
  }, 20_000);
  afterAll(() => {
    delete process.env.OTLP_TEST_TOKEN;
    receiver.stop();
    upstream.stop();
  });

  test("spans are POSTed as protobuf to <endpoint>/v1/traces with the configured headers", () => {
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const entry of receiver.received) {
      expect(entry).toMatchObject({ path: "/v1/traces", authorization: "Bearer collector-secret", contentType: "application/x-protobuf" });
      expect(entry.body.resourceSpans[0]!.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "gateway-under-test" } });
    }
    expect(spans).toHaveLength(2);
  });

  test("one CLIENT span per request, named `{operation} {model}`, inside the caller's trace, with the GenAI attributes", () => {
    const [answered] = spans;
    expect(answered).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_SPAN_ID, name: "chat openai/gpt-4o-mini", kind: 3, status: {} });
    expect(answered!.spanId).toMatch(/^[\da-f]{16}$/);
    expect(BigInt(answered!.endTimeUnixNano)).toBeGreaterThan(BigInt(answered!.startTimeUnixNano));
    for (const key of GEN_AI_KEYS) expect(attribute(answered!, key), key).toBeDefined();
    expect(attribute(answered!, "gen_ai.operation.name")).toEqual({ stringValue: "chat" });
    expect(attribute(answered!, "gen_ai.provider.name")).toEqual({ stringValue: "openai" });
    expect(attribute(answered!, "gen_ai.system")).toBeUndefined();
    expect(attribute(answered!, "gen_ai.request.model")).toEqual({ stringValue: "openai/gpt-4o-mini" });
    expect(attribute(answered!, "gen_ai.response.model")).toEqual({ stringValue: "gpt-4o-mini" });
    expect(attribute(answered!, "gen_ai.usage.input_tokens")).toEqual({ intValue: "3" });
    expect(attribute(answered!, "gen_ai.usage.output_tokens")).toEqual({ intValue: "4" });
    expect(attribute(answered!, "gen_ai.response.finish_reasons")).toEqual({ arrayValue: { values: [{ stringValue: "stop" }] } });
    const ttft = attribute(answered!, "gen_ai.response.time_to_first_chunk") as { doubleValue?: number; intValue?: string };
    expect(Number(ttft.doubleValue ?? ttft.intValue)).toBeGreaterThanOrEqual(0);
    expect(attribute(answered!, "http.response.status_code")).toEqual({ intValue: "200" });
  });

  test("the gateway's own attributes: virtual key, attempts as events; no content without capture_content", () => {
    const [answered] = spans;
    expect(attribute(answered!, "gateway.virtual_key.id")).toEqual({ stringValue: virtualKeyId });
    expect(attribute(answered!, "gateway.virtual_key.name")).toEqual({ stringValue: "traced" });
    expect(attribute(answered!, "gateway.stream")).toEqual({ boolValue: true });
    const events = answered!.events ?? [];
    expect(events.map((event) => event.name)).toEqual(["gateway.attempt"]);
    expect(attribute(events[0]!, "gateway.key_id")).toEqual({ stringValue: "k1" });
    expect(JSON.stringify(spans)).not.toContain("one two three");
  });

  test("a failed request's span has status ERROR and its error_type", () => {
    const failed = spans[1]!;
    expect(failed.traceId).toMatch(/^[\da-f]{32}$/);
    expect(failed.traceId).not.toBe(TRACE_ID);
    expect(failed.status.code).toBe(2);
    expect(attribute(failed, "error.type")).toEqual({ stringValue: "provider_rejected_request" });
    expect(attribute(failed, "http.response.status_code")).toEqual({ intValue: "400" });
  });
});

describe("OTLP/HTTP JSON, content capture, and a collector that is down for a while", () => {
  let upstream: MockOpenAI;
  let receiver: OtlpReceiver;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = startMockOpenAI();
    receiver = startOtlpReceiver();
    gw = await startGateway({ telemetry: { metrics_token: METRICS_TOKEN, otlp: { endpoint: `${receiver.url}/v1/traces`, protocol: "http/json", capture_content: true } }, providers: PROVIDERS(upstream) });
  });
  afterAll(async () => {
    await gw.close();
    receiver.stop();
    upstream.stop();
  });

  const chat = (content: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

  test("the prompt and the reply ride on an event only when capture_content is on; JSON goes as application/json", async () => {
    await chat("the secret recipe");
    const [span] = await eventually(async () => receiver.spans(), (spans) => spans.length === 1);
    expect(receiver.received[0]!.contentType).toBe("application/json");
    const details = span!.events!.find((event) => event.name === "gen_ai.client.inference.operation.details")!;
    expect(String(attribute(details, "gen_ai.input.messages")?.stringValue)).toContain("the secret recipe");
    expect(attribute(details, "gen_ai.output.messages")?.stringValue).toEqual(expect.any(String));
  });

  test("spans a collector refuses with 503 are retried and arrive once it is back; the reply never waits", async () => {
    receiver.state.status = 503;
    const before = receiver.spans().length;
    const started = performance.now();
    await chat("during the outage");
    expect(performance.now() - started).toBeLessThan(2_000);
    await eventually(async () => receiver.state.refused, (refused) => refused >= 2, 10_000);
    receiver.state.status = 200;
    await eventually(async () => receiver.spans().length, (count) => count === before + 1, 10_000);
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('gateway_otlp_spans_dropped_total{reason="export_failed"} 0');
  }, 20_000);
});

describe("MCP tool calls as execute_tool spans", () => {
  let receiver: OtlpReceiver;
  let weather: McpHttpServer;
  let gw: TestGateway;

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    weather = startMcpHttpServer();
    gw = await startMcpGateway({ telemetry: { otlp: { endpoint: receiver.url } } });
    await createMcpClient(gw, { name: "weather", connection_type: "http", connection_string: weather.url, tools_to_execute: ["*"] });
  });
  afterAll(async () => {
    await gw.close();
    await weather.stop();
    receiver.stop();
  });

  test("a tool call is an INTERNAL `execute_tool {tool}` span with the conventions' tool attributes, no arguments without capture_content", async () => {
    expect((await executeTool(gw, "weather-get_weather", { city: "Lisbon" })).status).toBe(200);
    const [span] = await eventually(async () => receiver.spans(), (spans) => spans.length === 1);
    expect(span).toMatchObject({ name: "execute_tool get_weather", kind: 1, status: {} });
    expect(attribute(span!, "gen_ai.operation.name")).toEqual({ stringValue: "execute_tool" });
    expect(attribute(span!, "gen_ai.tool.name")).toEqual({ stringValue: "get_weather" });
    expect(attribute(span!, "gateway.mcp.server")).toEqual({ stringValue: "weather" });
    expect(BigInt(span!.endTimeUnixNano)).toBeGreaterThan(BigInt(span!.startTimeUnixNano));
    expect(JSON.stringify(span)).not.toContain("Lisbon");
  });

  test("a batch larger than one protobuf chunk (32 spans) arrives whole, every span decodable", async () => {
    const before = receiver.spans().length;
    await Promise.all(Array.from({ length: 40 }, (_, index) => executeTool(gw, "weather-get_weather", { city: `city ${index}` })));
    const spans = await eventually(async () => receiver.spans(), (all) => all.length === before + 40, 10_000);
    expect(spans.slice(before).every((span) => span.name === "execute_tool get_weather")).toBe(true);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
  }, 20_000);
});
