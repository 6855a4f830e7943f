import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type ParsedMetrics, parsePrometheus, valueOf } from "./prometheus-text";

const METRICS_TOKEN = "scrape-me-0123456789";

describe("who may scrape GET /metrics", () => {
  test("with no metrics token or allowlist configured it is closed, even to the setup token", async () => {
    const gw = await startGateway();
    try {
      await expectGatewayError(await fetch(`${gw.url}/metrics`), 403, { errorType: "policy_metrics_not_configured" });
      await expectGatewayError(await fetch(`${gw.url}/metrics`, { headers: { "x-gateway-setup-token": SETUP_TOKEN } }), 403, { errorType: "policy_metrics_not_configured" });
    } finally {
      await gw.close();
    }
  });

  test("under the setup lock, the configured metrics token opens it; none is a 401, a wrong one a 403", async () => {
    const gw = await startGateway({ telemetry: { metrics_token: METRICS_TOKEN } });
    try {
      await expectGatewayError(await fetch(`${gw.url}/metrics`), 401, { errorType: "caller_metrics_token_required" });
      await expectGatewayError(await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${SETUP_TOKEN}` } }), 403, { errorType: "caller_invalid_metrics_token" });
      const scraped = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    } finally {
      await gw.close();
    }
  });

  test("an allow-listed address scrapes without a token; others still need it", async () => {
    const allowed = await startGateway({ telemetry: { metrics_allowlist: ["127.0.0.0/8", "::1"] } });
    const elsewhere = await startGateway({ telemetry: { metrics_allowlist: ["10.0.0.0/8"], metrics_token: METRICS_TOKEN } });
    try {
      expect((await fetch(`${allowed.url}/metrics`)).status).toBe(200);
      expect((await fetch(`${elsewhere.url}/metrics`)).status).toBe(401);
    } finally {
      await allowed.close();
      await elsewhere.close();
    }
  });
});

describe("/metrics scraped and parsed", () => {
  let upstream: MockOpenAI;
  let gw: TestGateway;
  let metrics: ParsedMetrics;
  let beforeCacheHit: ParsedMetrics;
  const scrape = async () => parsePrometheus(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
  const ODD_MODEL = 'gpt-"quoted"\\model';

  beforeAll(async () => {
    upstream = startMockOpenAI();
    gw = await startGateway({
      telemetry: { metrics_token: METRICS_TOKEN },
      providers: { openai: { keys: [{ id: "k1", value: "sk-test", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } },
    });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }] });
    await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "four five" }] });
    await client.chat.completions.create({ model: `openai/${ODD_MODEL}`, messages: [{ role: "user", content: "labels" }] });
    upstream.faults.push({ kind: "status", status: 400, message: "rejected by the mock" });
    await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "fails" }] });
    await postJson(`${gw.url}/v1/chat/completions`, { model: "nowhere/none", messages: [{ role: "user", content: "no such provider" }] });
    const cached = { "x-gw-cache-key": "metrics" };
    await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "cache me" }] }, cached);
    beforeCacheHit = await scrape();
    await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "cache me" }] }, cached);
    metrics = await scrape();
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  const mini = { provider: "openai", model: "gpt-4o-mini" };

  test("requests by target, request type and outcome", () => {
    expect(metrics.types.get("gateway_requests_total")).toBe("counter");
    expect(valueOf(metrics, "gateway_requests_total", { ...mini, request_type: "chat.completion", status: "success" })).toBe(4);
    expect(valueOf(metrics, "gateway_requests_total", { ...mini, request_type: "chat.completion", status: "error" })).toBe(1);
  });

  test("label values are escaped and read back exactly", () => {
    expect(valueOf(metrics, "gateway_requests_total", { provider: "openai", model: ODD_MODEL, status: "success" })).toBe(1);
  });

  test("errors by error_type", () => {
    const errors = metrics.samples.filter((sample) => sample.name === "gateway_errors_total");
    expect(errors).toEqual([
      { name: "gateway_errors_total", labels: { ...mini, error_type: "provider_rejected_request" }, value: 1 },
      { name: "gateway_errors_total", labels: { provider: "", model: "nowhere/none", error_type: "caller_invalid_model" }, value: 1 },
    ]);
  });

  test("latency histograms: request duration for every request, upstream duration only for those that went upstream", () => {
    expect(metrics.types.get("gateway_request_duration_seconds")).toBe("histogram");
    const total = valueOf(metrics, "gateway_request_duration_seconds_count", { ...mini, request_type: "chat.completion" });
    expect(total).toBe(5);
    const buckets = metrics.samples.filter((sample) => sample.name === "gateway_request_duration_seconds_bucket" && sample.labels.model === "gpt-4o-mini");
    const counts = buckets.map((sample) => sample.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(buckets.at(-1)).toMatchObject({ labels: { le: "+Inf" }, value: 5 });
    expect(valueOf(metrics, "gateway_request_duration_seconds_sum", { ...mini, request_type: "chat.completion" })).toBeGreaterThan(0);
    // Three answered and one failed upstream call; the cache hit never went upstream.
    expect(valueOf(metrics, "gateway_upstream_duration_seconds_count", mini)).toBe(4);
  });

  test("tokens by direction, as the provider reported them; a cache hit adds none", () => {
    // The mock counts words: "one two three", "four five" and "cache me" in, "echo: ..." of each out.
    expect(valueOf(metrics, "gateway_tokens_total", { ...mini, direction: "input" })).toBe(3 + 2 + 2);
    expect(valueOf(metrics, "gateway_tokens_total", { ...mini, direction: "output" })).toBe(4 + 3 + 3);
  });

  test("cache hits by type", () => {
    expect(valueOf(metrics, "gateway_cache_hits_total", { type: "direct" })).toBe(1);
  });

  test("the log queue's drops, retries, depth and bytes", () => {
    expect(metrics.types.get("gateway_log_queue_dropped_total")).toBe("counter");
    expect(valueOf(metrics, "gateway_log_queue_dropped_total")).toBe(0);
    expect(metrics.types.get("gateway_log_write_retries_total")).toBe("counter");
    expect(valueOf(metrics, "gateway_log_write_retries_total")).toBe(0);
    expect(valueOf(metrics, "gateway_log_queue_depth")).toBeGreaterThanOrEqual(0);
    expect(metrics.types.get("gateway_log_queue_bytes")).toBe("gauge");
    expect(valueOf(metrics, "gateway_log_queue_bytes")).toBeGreaterThanOrEqual(0);
  });

  test("cost in USD of priced requests; a cache hit costs nothing", () => {
    expect(metrics.types.get("gateway_cost_usd_total")).toBe("counter");
    const cost = valueOf(metrics, "gateway_cost_usd_total", mini)!;
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBe(valueOf(beforeCacheHit, "gateway_cost_usd_total", mini)!);
    expect(valueOf(metrics, "gateway_requests_total", { ...mini, status: "success" })).toBe(valueOf(beforeCacheHit, "gateway_requests_total", { ...mini, status: "success" })! + 1);
  });
});
