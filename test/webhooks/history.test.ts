import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { submittedJob } from "../support/async-jobs";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint, type DeliveryBody, deliveriesOf, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;
const clock = new TestClock();
let orders: EndpointBody;
let audits: EndpointBody;
let firstAt: number;

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const testDelivery = async (endpoint: EndpointBody) => (await (await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" })).json()) as DeliveryBody;

/** Four deliveries a minute apart: delivered and failed jobs to one endpoint, two test deliveries to another. */
beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway(
    { providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
    { runtime: { actorClock: clock } },
  );
  orders = await createEndpoint(gw, receiver, "/orders", { events: ["async_job.completed", "async_job.failed"] });
  audits = await createEndpoint(gw, receiver, "/audits", { events: ["async_job.completed"], disabled: true });
  firstAt = clock.now();
  const completed = await submittedJob(gw, "chat/completions", chat("ok"), { "x-gw-async-webhook": orders.name });
  await historyUntil(gw, `?job_id=${completed.id}`, (list) => list.deliveries[0]?.status === "delivered");
  clock.increment(60_000);
  receiver.replies.push(404);
  upstream.faults.push({ kind: "status", status: 400 });
  const failed = await submittedJob(gw, "chat/completions", chat("no"), { "x-gw-async-webhook": orders.name });
  await historyUntil(gw, `?job_id=${failed.id}`, (list) => list.deliveries[0]?.status === "failed");
  clock.increment(60_000);
  await testDelivery(audits);
  clock.increment(60_000);
  receiver.replies.push(503);
  await testDelivery(audits);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

const statusesOf = (list: { deliveries: DeliveryBody[] }) => list.deliveries.map((delivery) => delivery.status);

describe("delivery history: filters and pagination", () => {
  test("newest first, each with its attempts' status code, latency, error and response excerpt", async () => {
    const all = await deliveriesOf(gw);
    expect(all).toMatchObject({ count: 4, total_count: 4, limit: 50, offset: 0 });
    expect(statusesOf(all)).toEqual(["exhausted", "delivered", "failed", "delivered"]);
    const rejected = { attempt: 1, status_code: 404, outcome: "permanent", latency_ms: expect.any(Number), response_excerpt: "status 404", error: null };
    expect(all.deliveries[2]!.attempts).toEqual([expect.objectContaining(rejected)]);
  });

  test("per endpoint, and by endpoint_id on the global list", async () => {
    const ordersOnly = (await (await gw.admin(`/api/webhooks/${orders.id}/deliveries`)).json()) as { deliveries: DeliveryBody[]; total_count: number };
    expect(ordersOnly.total_count).toBe(2);
    expect(ordersOnly.deliveries.every((delivery) => delivery.endpoint_id === orders.id)).toBe(true);
    expect((await deliveriesOf(gw, `?endpoint_id=${audits.id}`)).deliveries.map((delivery) => delivery.event)).toEqual(["webhook.test", "webhook.test"]);
    await expectGatewayError(await gw.admin("/api/webhooks/no-such-endpoint/deliveries"), 404);
  });

  test("by event, outcome and status class", async () => {
    expect(statusesOf(await deliveriesOf(gw, "?event=async_job.failed"))).toEqual(["failed"]);
    expect(statusesOf(await deliveriesOf(gw, "?outcome=exhausted,failed"))).toEqual(["exhausted", "failed"]);
    expect(statusesOf(await deliveriesOf(gw, "?status_class=2xx"))).toEqual(["delivered", "delivered"]);
    expect(statusesOf(await deliveriesOf(gw, "?status_class=4xx,5xx"))).toEqual(["exhausted", "failed"]);
    await expectGatewayError(await gw.admin("/api/webhooks/deliveries?outcome=lost"), 400, { param: "outcome" });
  });

  test("by time range", async () => {
    const iso = (offset: number) => new Date(firstAt + offset).toISOString();
    expect(statusesOf(await deliveriesOf(gw, `?start_time=${iso(30_000)}&end_time=${iso(150_000)}`))).toEqual(["delivered", "failed"]);
  });

  test("limit and offset page through; total_count counts every match", async () => {
    const page = await deliveriesOf(gw, "?limit=2&offset=1");
    expect(page).toMatchObject({ count: 2, total_count: 4, limit: 2, offset: 1 });
    expect(statusesOf(page)).toEqual(["delivered", "failed"]);
  });
});

describe("redelivery (spec 4.15)", () => {
  test("re-queues under the original webhook-id: 202 {status: queued, webhook_id}; the receiver gets the same message", async () => {
    const [original] = (await deliveriesOf(gw, `?endpoint_id=${orders.id}&outcome=delivered`)).deliveries;
    const firstCopy = receiver.received.find((delivery) => delivery.headers.get("webhook-id") === original!.webhook_id)!;
    const before = receiver.received.length;
    const response = await gw.admin(`/api/webhooks/deliveries/${original!.id}/redeliver`, { method: "POST" });
    expect(response.status).toBe(202);
    const queued = (await response.json()) as { status: string; webhook_id: string; delivery_id: string };
    expect(queued).toMatchObject({ status: "queued", webhook_id: original!.webhook_id });
    const [again] = (await receiver.arrivals(before + 1)).slice(-1);
    expect(again!.headers.get("webhook-id")).toBe(original!.webhook_id);
    expect(again!.body).toBe(firstCopy.body);
    const record = (await historyUntil(gw, `?job_id=${original!.job_id}`, (list) => list.deliveries.every((delivery) => delivery.status === "delivered"))).deliveries;
    expect(record.find((delivery) => delivery.id === queued.delivery_id)).toMatchObject({ redelivery_of: original!.id, webhook_id: original!.webhook_id });
  });

  test("409 while that delivery is in flight; 404 when unknown", async () => {
    await expectGatewayError(await gw.admin("/api/webhooks/deliveries/no-such-delivery/redeliver", { method: "POST" }), 404);
    const gate = Promise.withResolvers<number>();
    receiver.replies.push(gate.promise);
    const before = receiver.received.length;
    const job = await submittedJob(gw, "chat/completions", chat("slow receiver"), { "x-gw-async-webhook": orders.name });
    await receiver.arrivals(before + 1);
    const [inFlight] = (await deliveriesOf(gw, `?job_id=${job.id}`)).deliveries;
    await expectGatewayError(await gw.admin(`/api/webhooks/deliveries/${inFlight!.id}/redeliver`, { method: "POST" }), 409);
    gate.resolve(200);
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");
    expect((await gw.admin(`/api/webhooks/deliveries/${inFlight!.id}/redeliver`, { method: "POST" })).status).toBe(202);
  });

  test("requests sent at the same moment re-queue it once: the others get 409", async () => {
    const [original] = (await deliveriesOf(gw, `?endpoint_id=${orders.id}&outcome=delivered`)).deliveries;
    await historyUntil(gw, `?job_id=${original!.job_id}`, (list) => list.deliveries.every((delivery) => delivery.status === "delivered"));
    const gate = Promise.withResolvers<number>();
    receiver.replies.push(gate.promise);
    const statuses = await Promise.all(Array.from({ length: 4 }, () => gw.admin(`/api/webhooks/deliveries/${original!.id}/redeliver`, { method: "POST" }).then((response) => response.status)));
    gate.resolve(200);
    expect(statuses.sort()).toEqual([202, 409, 409, 409]);
    await historyUntil(gw, `?job_id=${original!.job_id}`, (list) => list.deliveries.every((delivery) => delivery.status === "delivered"));
  });
});
