import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { retryDelayMs } from "../../src/inference/backoff";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

/** What one request does on failure is tested here: a key opened by the failures of earlier tests would hide it (breakers: key-breakers.test.ts). */
const NO_BREAKERS = { enabled: false };

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { network_config: { base_url: upstream.baseUrl, health: NO_BREAKERS } } } });
});
afterEach(() => {
  upstream.faults.length = 0;
  upstream.onRequest = undefined;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

type NetworkSettings = { max_retries?: number; retry_backoff_initial?: number; retry_backoff_max?: number; default_request_timeout_in_seconds?: number };

async function configure(keyIds: string[], network: NetworkSettings = {}) {
  const json = { network_config: { base_url: upstream.baseUrl, health: NO_BREAKERS, ...network }, keys: keyIds.map((id) => ({ id, value: `secret-${id}` })) };
  expect((await gw.admin("/api/providers/openai", { method: "PUT", json })).status).toBe(200);
}

/** One chat request; returns the response and the upstream requests it caused. */
async function chat(): Promise<{ response: Response; sent: RecordedRequest[] }> {
  const start = upstream.requests.length;
  const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "retry me" }] });
  if (response.ok) await response.arrayBuffer();
  return { response, sent: upstream.requests.slice(start) };
}

const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");
const fail = (status: number, headers?: Record<string, string>) => ({ kind: "status" as const, status, headers });

describe("5xx replies are retried with exponential backoff up to network_config.max_retries", () => {
  test("max_retries 2: three attempts, then the upstream's error with its status", async () => {
    await configure(["a"], { max_retries: 2, retry_backoff_initial: 40, retry_backoff_max: 10_000 });
    upstream.faults.push(fail(503), fail(503), fail(503), fail(503));
    const { response, sent } = await chat();
    const body = await expectGatewayError(response, 503, { errorType: "provider_server_error" });
    expect(body.is_gateway_error).toBe(false);
    expect(body.error.message).toBe("mock failure 503");
    expect(sent).toHaveLength(3);
    // Jittered delays lie in [½, 1] of 40 ms, then of 80 ms: the lower bounds prove the doubling.
    const gaps = sent.slice(1).map((request, index) => request.receivedAt! - sent[index]!.receivedAt!);
    expect(gaps[0]!).toBeGreaterThanOrEqual(18);
    expect(gaps[1]!).toBeGreaterThanOrEqual(38);
  });

  test("a success within the retry budget is what the client sees", async () => {
    await configure(["a"], { max_retries: 2, retry_backoff_initial: 1 });
    upstream.faults.push(fail(500), fail(502));
    const { response, sent } = await chat();
    expect(response.status).toBe(200);
    expect(sent).toHaveLength(3);
  });

  test("max_retries 0 means a single attempt", async () => {
    await configure(["a"], { max_retries: 0 });
    upstream.faults.push(fail(500), fail(500));
    const { response, sent } = await chat();
    await expectGatewayError(response, 500, { errorType: "provider_server_error" });
    expect(sent).toHaveLength(1);
  });

  test("retry_backoff_max caps each delay", async () => {
    await configure(["a"], { max_retries: 2, retry_backoff_initial: 2000, retry_backoff_max: 20 });
    upstream.faults.push(fail(500), fail(500));
    const { response, sent } = await chat();
    expect(response.status).toBe(200);
    const gaps = sent.slice(1).map((request, index) => request.receivedAt! - sent[index]!.receivedAt!);
    // Uncapped, the first delay would be at least 1000 ms.
    for (const gap of gaps) expect(gap).toBeLessThan(500);
  });

  test("retries stay on the key that failed", async () => {
    await configure(["a", "b"], { max_retries: 1, retry_backoff_initial: 1 });
    for (let round = 0; round < 12; round++) {
      upstream.faults.push(fail(500));
      const { response, sent } = await chat();
      expect(response.status).toBe(200);
      expect(sent.map(keyOf)).toEqual([keyOf(sent[0]!), keyOf(sent[0]!)]);
    }
  });

  test("the backoff doubles from the initial delay, with jitter in [½, 1], up to the cap", () => {
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs(attempt, 100, 1000, () => 1))).toEqual([100, 200, 400, 800]);
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs(attempt, 100, 1000, () => 0))).toEqual([50, 100, 200, 400]);
    expect(retryDelayMs(10, 100, 1000, () => 1)).toBe(1000);
  });
});

describe("429 moves the request to another key", () => {
  test("the next attempt uses a different key and succeeds", async () => {
    await configure(["a", "b"], { max_retries: 0 });
    for (let round = 0; round < 6; round++) {
      upstream.faults.push(fail(429));
      const { response, sent } = await chat();
      expect(response.status).toBe(200);
      expect(sent).toHaveLength(2);
      expect(new Set(sent.map(keyOf)).size).toBe(2);
    }
  });

  test("when every key is limited: 429 with retry-after header and extra_fields.retry_after_ms", async () => {
    await configure(["a", "b"], { max_retries: 3 });
    upstream.faults.push(fail(429, { "retry-after": "7" }), fail(429, { "retry-after": "7" }));
    const { response, sent } = await chat();
    expect(response.headers.get("retry-after")).toBe("7");
    const body = await expectGatewayError(response, 429, { errorType: "provider_rate_limited" });
    expect(body.extra_fields.retry_after_ms).toBe(7000);
    expect(sent).toHaveLength(2);
  });

  test("retry-after-ms is honoured and rounded up to whole seconds in the header", async () => {
    await configure(["a"]);
    upstream.faults.push(fail(429, { "retry-after-ms": "1500" }));
    const { response } = await chat();
    expect(response.headers.get("retry-after")).toBe("2");
    expect((await expectGatewayError(response, 429)).extra_fields.retry_after_ms).toBe(1500);
  });
});

describe("401 and 403 take the key out of rotation for the request", () => {
  test("each rejected key is skipped and the last healthy one answers", async () => {
    await configure(["a", "b", "c"], { max_retries: 0 });
    for (let round = 0; round < 4; round++) {
      upstream.faults.push(fail(401), fail(403));
      const { response, sent } = await chat();
      expect(response.status).toBe(200);
      expect(new Set(sent.map(keyOf)).size).toBe(3);
    }
  });

  test("a rejected key is not retried, whatever max_retries says", async () => {
    await configure(["a"], { max_retries: 3, retry_backoff_initial: 1 });
    upstream.faults.push(fail(401), fail(401));
    const { response, sent } = await chat();
    await expectGatewayError(response, 401, { errorType: "provider_auth_failed" });
    expect(sent).toHaveLength(1);
  });

  test("only for that request: the next request may use the key again", async () => {
    await configure(["a"], { max_retries: 0 });
    upstream.faults.push(fail(403));
    await expectGatewayError((await chat()).response, 403, { errorType: "provider_auth_failed" });
    const { response, sent } = await chat();
    expect(response.status).toBe(200);
    expect(sent.map(keyOf)).toEqual(["a"]);
  });
});

describe("transport failures", () => {
  test("a dropped connection is a 502 provider_unreachable", async () => {
    await configure(["a"], { max_retries: 0 });
    upstream.faults.push({ kind: "drop" });
    await expectGatewayError((await chat()).response, 502, { errorType: "provider_unreachable" });
  });

  test("a dropped connection is retried like a 5xx", async () => {
    await configure(["a"], { max_retries: 1, retry_backoff_initial: 1 });
    upstream.faults.push({ kind: "drop" });
    const { response, sent } = await chat();
    expect(response.status).toBe(200);
    expect(sent).toHaveLength(2);
  });

  test("an upstream slower than default_request_timeout_in_seconds is a 504 provider_timeout", async () => {
    await configure(["a"], { max_retries: 0, default_request_timeout_in_seconds: 1 });
    const release = Promise.withResolvers<void>();
    upstream.onRequest = () => release.promise;
    const started = performance.now();
    const { response } = await chat();
    release.resolve();
    await expectGatewayError(response, 504, { errorType: "provider_timeout" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  test("default_request_timeout_in_seconds 0 selects the default instead of timing out at once", async () => {
    await configure(["a"], { max_retries: 0, default_request_timeout_in_seconds: 0 });
    expect((await chat()).response.status).toBe(200);
  });

  test("a timeout longer than a timer can hold (a month) waits for the reply instead of timing out at once", async () => {
    await configure(["a"], { max_retries: 0, default_request_timeout_in_seconds: 30 * 86_400 });
    expect((await chat()).response.status).toBe(200);
  });

  test("an unreachable base_url is a 502, not a 500", async () => {
    const closed = startMockOpenAI();
    closed.stop();
    expect((await gw.admin("/api/providers/openai", { method: "PUT", json: { network_config: { base_url: closed.baseUrl, health: NO_BREAKERS } } })).status).toBe(200);
    await expectGatewayError((await chat()).response, 502, { errorType: "provider_unreachable" });
  });
});

describe("upstream status is preserved and classified", () => {
  for (const [status, errorType] of [
    [400, "provider_rejected_request"],
    [404, "provider_not_found"],
    [422, "provider_rejected_request"],
  ] as const) {
    test(`an upstream ${status} comes back as ${status} ${errorType}, not retried`, async () => {
      await configure(["a"], { max_retries: 3, retry_backoff_initial: 1 });
      upstream.faults.push(fail(status));
      const { response, sent } = await chat();
      const body = await expectGatewayError(response, status, { errorType });
      expect(body.is_gateway_error).toBe(false);
      expect(sent).toHaveLength(1);
    });
  }

  test("the OpenAI SDK sees the upstream's status and message", async () => {
    await configure(["a"], { max_retries: 0 });
    upstream.faults.push({ kind: "status", status: 400, message: "context length exceeded" });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const error = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "x" }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("context length exceeded");
  });
});
