import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { postJson } from "../support/gateway-error";
import { startGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

type Attribute = { key: string; value: Record<string, unknown> };
type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes: Attribute[]; status: { code?: number; message?: string } };
type Export = { resourceSpans: Array<{ resource: { attributes: Attribute[] }; scopeSpans: Array<{ spans: Span[] }> }> };

/** An OTLP/HTTP collector that keeps what it receives. */
function startCollector() {
  const received: Array<{ path: string; authorization: string | null; contentType: string | null; body: Export }> = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), contentType: request.headers.get("content-type"), body: (await request.json()) as Export });
      return Response.json({ partialSuccess: {} });
    },
  });
  return { received, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

const attribute = (span: Span, key: string) => span.attributes.find((entry) => entry.key === key)?.value;

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN_ID = "b7ad6b7169203331";

describe("OpenTelemetry traces when an OTLP endpoint is configured", () => {
  let upstream: MockOpenAI;
  let collector: ReturnType<typeof startCollector>;
  let spans: Span[];

  beforeAll(async () => {
    upstream = startMockOpenAI();
    collector = startCollector();
    process.env.OTLP_TEST_TOKEN = "Bearer collector-secret";
    const gw = await startGateway({
      telemetry: { otlp: { endpoint: collector.url, headers: { authorization: "env.OTLP_TEST_TOKEN" }, service_name: "gateway-under-test" } },
      providers: { openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } },
    });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }] });
    upstream.faults.push({ kind: "status", status: 400, message: "rejected by the mock" });
    await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "fails" }] });
    // Stopping flushes the exporter's queue.
    await gw.close();
    spans = collector.received.flatMap((entry) => entry.body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
  });
  afterAll(() => {
    delete process.env.OTLP_TEST_TOKEN;
    collector.stop();
    upstream.stop();
  });

  test("spans are POSTed as OTLP/HTTP JSON to <endpoint>/v1/traces with the configured headers", () => {
    expect(collector.received.length).toBeGreaterThan(0);
    for (const entry of collector.received) {
      expect(entry).toMatchObject({ path: "/v1/traces", authorization: "Bearer collector-secret", contentType: "application/json" });
      expect(entry.body.resourceSpans[0]!.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "gateway-under-test" } });
    }
    expect(spans).toHaveLength(2);
  });

  test("one server span per request, joining the caller's trace, with the GenAI attributes", () => {
    const [answered] = spans;
    expect(answered).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_SPAN_ID, name: "chat.completion openai/gpt-4o-mini", kind: 2, status: {} });
    expect(answered!.spanId).toMatch(/^[\da-f]{16}$/);
    expect(BigInt(answered!.endTimeUnixNano)).toBeGreaterThan(BigInt(answered!.startTimeUnixNano));
    expect(attribute(answered!, "gen_ai.system")).toEqual({ stringValue: "openai" });
    expect(attribute(answered!, "gen_ai.request.model")).toEqual({ stringValue: "openai/gpt-4o-mini" });
    expect(attribute(answered!, "gen_ai.usage.input_tokens")).toEqual({ intValue: "3" });
    expect(attribute(answered!, "gen_ai.usage.output_tokens")).toEqual({ intValue: "4" });
    expect(attribute(answered!, "http.response.status_code")).toEqual({ intValue: "200" });
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
