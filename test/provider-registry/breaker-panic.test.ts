import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { type Fault, type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

let upstream: MockOpenAI;
let gw: TestGateway;
const clock = new TestClock();

const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");
/** What the mock answers a key for one model (`key model`) or for every model (`key *`), until the test clears it. */
const faults = new Map<string, Fault>();

const serverError: Fault = { kind: "status", status: 500 };
const malformed: Fault = { kind: "body", body: "<html>502 Bad Gateway</html>", contentType: "text/html" };

/** A provider speaking OpenAI's format with the given keys (`name` weight) and health settings. */
const provider = (keys: Record<string, number>, health: Record<string, unknown> = {}) => ({
  custom_provider_config: { base_provider_type: "openai" },
  keys: Object.entries(keys).map(([id, weight]) => ({ id, value: `secret-${id}`, weight })),
  network_config: { base_url: upstream.baseUrl, health: { failure_threshold: 3, ...health } },
});

beforeAll(async () => {
  upstream = startMockOpenAI();
  upstream.onRequest = (request) => {
    const key = keyOf(request) ?? "";
    const fault = faults.get(`${key} ${String(request.body.model)}`) ?? faults.get(`${key} *`);
    if (fault) upstream.faults.unshift(fault);
  };
  gw = await startGateway(
    {
      telemetry: { metrics_allowlist: ["127.0.0.1", "::1"] },
      providers: {
        // Panic off: what the breakers alone do.
        solo: provider({ "solo-only": 1 }, { panic_threshold: 0 }),
        strict: provider({ "strict-only": 1 }, { panic_threshold: 0 }),
        single: provider({ "single-only": 1 }),
        limited: provider({ "limited-only": 1 }),
        // A spare of weight 0 takes requests only when the first key may not.
        half: provider({ "half-first": 1, "half-spare": 0 }, { panic_threshold: 0.5 }),
      },
    },
    { runtime: { actorClock: clock } },
  );
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

async function chat(model: string) {
  const start = upstream.requests.length;
  const response = await postJson(`${gw.url}/v1/chat/completions`, { model, messages: [{ role: "user", content: "hello" }] });
  return { response, keys: () => upstream.requests.slice(start).map(keyOf) };
}

/** Sends `times` requests and expects each answered with `status`. */
async function send(model: string, times: number, status: number) {
  for (let i = 0; i < times; i++) {
    const { response } = await chat(model);
    expect(response.status).toBe(status);
    await response.arrayBuffer();
  }
}

type KeyHealth = { state: string; models?: Array<{ model: string; state: string }> };
type ProviderBody = { keys: Array<{ id: string; health: KeyHealth }>; panic: { requests: number; last_at?: string } };

const providerOf = async (name: string) => (await (await gw.admin(`/api/providers/${name}`)).json()) as ProviderBody;
const keyHealth = async (name: string, keyId: string) => (await providerOf(name)).keys.find((key) => key.id === keyId)!.health;
const panicMetric = async (name: string) => valueOf(parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text()), "gateway_provider_panic_requests_total", { provider: name }) ?? 0;

describe("a failure on one model opens the key only for that model", () => {
  test("a single-key provider keeps serving a healthy model while another model's replies are malformed", async () => {
    faults.set("solo-only broken", malformed);
    await send("solo/broken", 3, 502);
    const health = await keyHealth("solo", "solo-only");
    expect(health.state).toBe("closed");
    expect(health.models).toEqual([expect.objectContaining({ model: "broken", state: "open" })]);

    const refused = await chat("solo/broken");
    expect(refused.keys()).toEqual([]);
    await expectGatewayError(refused.response, 503, { errorType: "provider_keys_open" });
    const served = await chat("solo/healthy");
    expect(served.response.status).toBe(200);
    await served.response.arrayBuffer();
    expect(served.keys()).toEqual(["solo-only"]);
    faults.clear();
  });

  test("5xx on one model between another model's successes open only that model; 5xx on every model opens the key", async () => {
    faults.set("strict-only flaky", serverError);
    for (let i = 0; i < 3; i++) {
      await send("strict/flaky", 1, 500);
      await send("strict/steady", 1, 200);
    }
    expect(await keyHealth("strict", "strict-only")).toMatchObject({ state: "closed", models: [{ model: "flaky", state: "open" }] });
    await send("strict/steady", 1, 200);

    faults.set("strict-only *", serverError);
    await send("strict/steady", 1, 500);
    await send("strict/other", 2, 500);
    expect((await keyHealth("strict", "strict-only")).state).toBe("open");
    faults.clear();
    const refused = await chat("strict/steady");
    expect(refused.keys()).toEqual([]);
    await expectGatewayError(refused.response, 503, { errorType: "provider_keys_open" });
  });
});

describe("panic: when the open keys reach the provider's panic_threshold, requests go to them as if closed", () => {
  test("a single key opened by 5xx keeps serving once the upstream recovers, and each such request is counted", async () => {
    faults.set("single-only *", serverError);
    await send("single/model", 3, 500);
    expect((await keyHealth("single", "single-only")).state).toBe("open");
    expect(await panicMetric("single")).toBe(0);
    faults.clear();

    for (let i = 0; i < 2; i++) {
      const { response, keys } = await chat("single/model");
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(keys()).toEqual(["single-only"]);
    }
    expect(await panicMetric("single")).toBe(2);
    const { panic } = await providerOf("single");
    expect(panic.requests).toBe(2);
    expect(Date.parse(panic.last_at!)).toBe(clock.now());
  });

  test("a key a 429's retry-after holds back is still refused until that time", async () => {
    faults.set("limited-only *", { kind: "status", status: 429, headers: { "retry-after": "20" } });
    await send("limited/model", 3, 429);
    faults.clear();
    const refused = await chat("limited/model");
    expect(refused.keys()).toEqual([]);
    expect(refused.response.headers.get("retry-after")).toBe("20");
    await expectGatewayError(refused.response, 503, { errorType: "provider_keys_open" });
    expect(await panicMetric("limited")).toBe(0);

    await clock.timerSet(20_000);
    clock.increment(20_000);
    await send("limited/model", 1, 200);
  });

  test("with panic_threshold 0.5, one open key of two is enough: requests spread by weight as if it were closed", async () => {
    faults.set("half-first *", serverError);
    await send("half/model", 3, 500);
    expect((await keyHealth("half", "half-first")).state).toBe("open");
    faults.clear();
    const { response, keys } = await chat("half/model");
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    // Without panic the spare would take it: the open key has the only positive weight.
    expect(keys()).toEqual(["half-first"]);
    expect(await panicMetric("half")).toBe(1);
  });
});
