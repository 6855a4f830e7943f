import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint, type DeliveryBody, deliveriesOf, type EndpointBody, fakeDns, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;
const clock = new TestClock();
const dns = fakeDns();

beforeAll(async () => {
  process.env.WEBHOOK_TEST_TOKEN = "token-from-the-environment";
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway(
    { env_references: { allow: ["WEBHOOK_TEST_TOKEN"] }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
    { runtime: { actorClock: clock, resolveHost: dns.resolve } },
  );
});
// Every job notifies every enabled subscriber: each test starts with the previous endpoints disabled.
afterEach(async () => {
  const { webhooks } = (await (await gw.admin("/api/webhooks")).json()) as { webhooks: EndpointBody[] };
  for (const endpoint of webhooks) await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "PUT", json: { disabled: true } });
  receiver.replies.length = 0;
  upstream.faults.length = 0;
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const notifying = (endpoint: EndpointBody) => ({ "x-gw-async-webhook": endpoint.name });
const historyOfJob = async (jobId: string) => (await deliveriesOf(gw, `?job_id=${jobId}`)).deliveries;
const readEndpoint = async (id: string) => (await (await gw.admin(`/api/webhooks/${id}`)).json()) as EndpointBody;

/** Resolves the receiver's replies one by one, when the test says. */
function heldReplies(count: number) {
  const gates = Array.from({ length: count }, () => Promise.withResolvers<number>());
  receiver.replies.push(...gates.map((gate) => gate.promise));
  return (index: number) => gates[index]!.resolve(200);
}

describe("Standard Webhooks signing and the payload", () => {
  test("every delivery is signed (verified with standardwebhooks) and carries the endpoint's headers, env values resolved", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/signed", { headers: { "X-Receiver-Token": "env.WEBHOOK_TEST_TOKEN", "X-Static": "static-value" } });
    const job = await submittedJob(gw, "chat/completions", chat("sign me"), notifying(endpoint));
    const [delivery] = (await receiver.arrivals(receiver.received.length + 1)).slice(-1);
    expect(receiver.rejected).toEqual([]);
    expect(delivery!.headers.get("webhook-id")).toMatch(/^msg_/);
    expect(Number(delivery!.headers.get("webhook-timestamp"))).toBe(Math.floor(Date.parse(delivery!.payload.created_at) / 1000));
    expect(delivery!.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(delivery!.headers.get("content-type")).toBe("application/json");
    expect(delivery!.headers.get("x-receiver-token")).toBe("token-from-the-environment");
    expect(delivery!.headers.get("x-static")).toBe("static-value");
    expect(delivery!.payload.data.job_id).toBe(job.id);
  });

  test("a completed job: {event, created_at, data} with the response inlined and a result_url that answers", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/completed", { include_response: true });
    const job = await submittedJob(gw, "chat/completions", chat("inline it"), notifying(endpoint));
    const [delivery] = (await receiver.arrivals(receiver.received.length + 1)).slice(-1);
    const finished = await finishedJob(gw, "chat/completions", job.id);
    expect(delivery!.payload).toEqual({
      event: "async_job.completed",
      created_at: finished.completed_at!,
      data: {
        job_id: job.id,
        request_type: "chat.completion",
        status: "completed",
        status_code: 200,
        result_url: `${gw.url}/v1/async/chat/completions/${job.id}`,
        result_expires_at: finished.expires_at,
        response: finished.result!,
      },
    });
    expect((await fetch(delivery!.payload.data.result_url as string)).status).toBe(200);
  });

  test("a failed job: async_job.failed with the error and its status code; no response unless asked", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/failed");
    upstream.faults.push({ kind: "status", status: 422, message: "unprocessable prompt" });
    await submittedJob(gw, "chat/completions", chat("fail me"), notifying(endpoint));
    const [delivery] = (await receiver.arrivals(receiver.received.length + 1)).slice(-1);
    expect(delivery!.payload.event).toBe("async_job.failed");
    expect(delivery!.payload.data).toMatchObject({ status: "failed", status_code: 422 });
    expect(JSON.stringify(delivery!.payload.data.error)).toContain("unprocessable prompt");
    expect(delivery!.payload.data).not.toHaveProperty("response");
    expect(delivery!.payload.data).not.toHaveProperty("response_omitted");
  });

  test("a response larger than max_response_payload_kbs is left out: response_omitted", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/capped", { include_response: true, max_response_payload_kbs: 1 });
    const inputs = Array.from({ length: 40 }, (_, index) => `text number ${index}`);
    await submittedJob(gw, "embeddings", { model: "openai/text-embedding-3-small", input: inputs, encoding_format: "float" }, notifying(endpoint));
    const [delivery] = (await receiver.arrivals(receiver.received.length + 1)).slice(-1);
    expect(delivery!.payload.data.response_omitted).toBe(true);
    expect(delivery!.payload.data).not.toHaveProperty("response");
    expect(delivery!.body.length).toBeLessThan(1024);
  });
});

describe("who is notified", () => {
  // Endpoints are created so that a wrong delivery would be recorded before the right one arrives.
  test("with no endpoint named, every enabled endpoint subscribed to the event, and no other", async () => {
    await createEndpoint(gw, receiver, "/failures-only", { events: ["async_job.failed"] });
    await createEndpoint(gw, receiver, "/disabled", { disabled: true });
    const completions = await createEndpoint(gw, receiver, "/completions-only", { events: ["async_job.completed"] });
    const job = await submittedJob(gw, "chat/completions", chat("who hears this"));
    await receiver.arrivals(receiver.received.length + 1);
    expect((await historyOfJob(job.id)).map((delivery) => delivery.endpoint_id)).toEqual([completions.id]);
  });

  test("x-gw-async-webhook notifies the named endpoint only", async () => {
    await createEndpoint(gw, receiver, "/other");
    const named = await createEndpoint(gw, receiver, "/named");
    const job = await submittedJob(gw, "chat/completions", chat("just you"), notifying(named));
    const [delivery] = (await receiver.arrivals(receiver.received.length + 1)).slice(-1);
    expect(delivery!.path).toBe("/named");
    expect((await historyOfJob(job.id)).map((entry) => entry.endpoint_id)).toEqual([named.id]);
  });
});

describe("retries, backoff and timeouts (on an injected clock)", () => {
  test("failed attempts retry after initial * 2^n seconds, capped, under the same webhook-id; stats follow", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/flaky", { retry_backoff_initial_seconds: 2, retry_backoff_max_seconds: 5 });
    receiver.replies.push(500, 503, 429, 200);
    const job = await submittedJob(gw, "chat/completions", chat("keep trying"), notifying(endpoint));
    const before = receiver.received.length;
    await receiver.arrivals(before + 1);
    for (const [index, delay] of [2000, 4000, 5000].entries()) {
      await clock.timerSet(delay);
      expect((await readEndpoint(endpoint.id)).consecutive_failures).toBe(index + 1);
      const [waiting] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "waiting_retry" && list.deliveries[0].attempt_count === index + 1)).deliveries;
      expect(Date.parse(waiting!.next_attempt_at!) - clock.now()).toBe(delay);
      clock.increment(delay);
      await receiver.arrivals(before + index + 2);
    }
    const [delivered] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered")).deliveries;
    expect(delivered!.attempts.map((attempt) => attempt.status_code)).toEqual([500, 503, 429, 200]);
    expect(new Set(receiver.received.slice(before).map((delivery) => delivery.headers.get("webhook-id")))).toEqual(new Set([delivered!.webhook_id]));
    const healthy = await readEndpoint(endpoint.id);
    expect(healthy.consecutive_failures).toBe(0);
    expect(Date.parse(healthy.last_success_at!)).toBeGreaterThan(Date.parse(healthy.last_failure_at!));
  });

  test("after max_retries retries the delivery is exhausted", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/down", { max_retries: 1, retry_backoff_initial_seconds: 7 });
    receiver.replies.push(500, 502);
    const job = await submittedJob(gw, "chat/completions", chat("nobody home"), notifying(endpoint));
    await receiver.arrivals(receiver.received.length + 1);
    await clock.timerSet(7000);
    clock.increment(7000);
    const [exhausted] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "exhausted")).deliveries;
    expect(exhausted!.attempts.map((attempt) => attempt.status_code)).toEqual([500, 502]);
    expect(exhausted!.completed_at).toEqual(expect.any(String));
  });

  test("a 4xx other than 408 and 429 fails the delivery without retrying", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/gone");
    receiver.replies.push({ status: 410, body: "this endpoint is gone" });
    const job = await submittedJob(gw, "chat/completions", chat("gone"), notifying(endpoint));
    const [failed] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "failed")).deliveries;
    expect(failed!.attempts).toEqual([expect.objectContaining({ status_code: 410, outcome: "permanent", response_excerpt: "this endpoint is gone" })]);
    expect(failed!.next_attempt_at).toBeNull();
  });

  test("attempt_timeout_seconds bounds an attempt against a receiver that never answers", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/silent", { attempt_timeout_seconds: 1, retry_backoff_initial_seconds: 3 });
    receiver.replies.push("hang", 200);
    const job = await submittedJob(gw, "chat/completions", chat("hello?"), notifying(endpoint));
    const before = receiver.received.length;
    await receiver.arrivals(before + 1);
    await clock.timerSet(1000);
    clock.increment(1000);
    await clock.timerSet(3000);
    const [waiting] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "waiting_retry")).deliveries;
    expect(waiting!.attempts[0]).toMatchObject({ status_code: null, outcome: "retryable", error: expect.stringContaining("timed out") });
    clock.increment(3000);
    await receiver.arrivals(before + 2);
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");
  });

  test("a deleted endpoint's waiting deliveries are dropped with it", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/deleted", { retry_backoff_initial_seconds: 11 });
    receiver.replies.push(500);
    const job = await submittedJob(gw, "chat/completions", chat("too late"), notifying(endpoint));
    await receiver.arrivals(receiver.received.length + 1);
    await clock.timerSet(11_000);
    expect((await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
    expect(clock.pendingDelays()).not.toContain(11_000);
    expect(await historyOfJob(job.id)).toEqual([]);
  });

  test("at most max_concurrent_deliveries attempts are in flight per endpoint", async () => {
    const endpoint = await createEndpoint(gw, receiver, "/slow", { max_concurrent_deliveries: 2 });
    const release = heldReplies(5);
    const before = receiver.received.length;
    receiver.maxInFlight = 0;
    for (let index = 0; index < 5; index++) await submittedJob(gw, "embeddings", { model: "openai/text-embedding-3-small", input: `slow ${index}` }, notifying(endpoint));
    await receiver.arrivals(before + 2);
    await historyUntil(gw, `?endpoint_id=${endpoint.id}&outcome=queued`, (list) => list.total_count === 3);
    expect(receiver.inFlight).toBe(2);
    // Each answer frees a slot for one more queued delivery, never more.
    for (let index = 0; index < 5; index++) {
      release(index);
      if (index < 3) await receiver.arrivals(before + index + 3);
      expect(receiver.inFlight).toBeLessThanOrEqual(2);
    }
    await historyUntil(gw, `?endpoint_id=${endpoint.id}&outcome=delivered`, (list) => list.total_count === 5);
    expect(receiver.maxInFlight).toBe(2);
  });
});

describe("the address guard at delivery time", () => {
  const testDelivery = async (endpoint: EndpointBody) => (await (await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" })).json()) as DeliveryBody;

  test("a host name is resolved, checked, and called at the address that was checked", async () => {
    dns.table.set("receiver.test", ["127.0.0.1"]);
    const port = new URL(receiver.url).port;
    const endpoint = await createEndpoint(gw, receiver, "/by-name", { url: `http://receiver.test:${port}/by-name` });
    expect((await testDelivery(endpoint)).status).toBe("delivered");
    expect(receiver.received.at(-1)!.headers.get("host")).toBe(`receiver.test:${port}`);
  });

  test("a DNS answer cannot smuggle in a metadata, link-local or mapped address", async () => {
    dns.table.set("turncoat.test", ["127.0.0.1"]);
    const port = new URL(receiver.url).port;
    const endpoint = await createEndpoint(gw, receiver, "/turncoat", { url: `http://turncoat.test:${port}/turncoat` });
    for (const answer of [["169.254.169.254"], ["127.0.0.1", "169.254.169.254"], ["::ffff:169.254.169.254"], ["fe80::1"]]) {
      dns.table.set("turncoat.test", answer);
      const before = receiver.received.length;
      const refused = await testDelivery(endpoint);
      expect(refused.status).toBe("failed");
      expect(refused.attempts[0]!.error).toMatch(/never allowed/);
      expect(receiver.received.length).toBe(before);
    }
  });

  test("a private address needs allow_private_network at delivery time too", async () => {
    dns.table.set("inside.test", ["93.184.216.34"]);
    const { endpoint } = (await (await gw.admin("/api/webhooks", { method: "POST", json: { name: "inside", url: "https://inside.test/in" } })).json()) as { endpoint: EndpointBody };
    dns.table.set("inside.test", ["10.0.0.7"]);
    const refused = await testDelivery(endpoint);
    expect(refused.status).toBe("failed");
    expect(refused.attempts[0]!.error).toMatch(/allow_private_network/);
  });

  test("redirects are not followed", async () => {
    const elsewhere = startWebhookReceiver();
    try {
      const endpoint = await createEndpoint(gw, receiver, "/redirecting");
      receiver.replies.push({ status: 302, headers: { location: `${elsewhere.url}/steal` } });
      const result = await testDelivery(endpoint);
      expect(result.attempts[0]).toMatchObject({ status_code: 302, outcome: "retryable", error: expect.stringContaining("not followed") });
      expect(elsewhere.received.length + elsewhere.rejected.length).toBe(0);
    } finally {
      elsewhere.stop();
    }
  });
});
