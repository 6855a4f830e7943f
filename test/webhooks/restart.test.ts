import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint, deliveriesOf, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;
let endpoint: EndpointBody;
const clock = new TestClock();

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway(
    { providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
    { runtime: { actorClock: clock } },
  );
  endpoint = await createEndpoint(gw, receiver, "/durable");
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

const notify = () => submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "survive" }] }, { "x-gw-async-webhook": endpoint.name });

describe("deliveries survive a restart", () => {
  test("a waiting retry keeps its schedule across a restart", async () => {
    receiver.replies.push(500, 200);
    const job = await notify();
    const before = receiver.received.length;
    await receiver.arrivals(before + 1);
    await clock.timerSet(30_000);
    const [waiting] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "waiting_retry")).deliveries;
    clock.increment(10_000);

    await gw.stop();
    gw = await gw.restart();

    await clock.timerSet(20_000);
    expect((await deliveriesOf(gw, `?job_id=${job.id}`)).deliveries[0]).toMatchObject({ status: "waiting_retry", next_attempt_at: waiting!.next_attempt_at });
    clock.increment(19_999);
    expect(clock.pendingDelays()).toContain(20_000);
    clock.increment(1);
    await receiver.arrivals(before + 2);
    const [delivered] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered")).deliveries;
    expect(delivered!.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
    const webhookIds = receiver.received.slice(before).map((delivery) => delivery.headers.get("webhook-id"));
    expect(webhookIds).toEqual([delivered!.webhook_id, delivered!.webhook_id]);
  });

  test("an attempt cut short by the restart is in the history, and is made again", async () => {
    receiver.replies.push("hang", 200);
    const job = await notify();
    const before = receiver.received.length;
    await receiver.arrivals(before + 1);

    await gw.stop();
    gw = await gw.restart();

    await receiver.arrivals(before + 2);
    const [delivered] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered")).deliveries;
    // The receiver got two requests: the history shows both, the one the stop cut short first.
    expect(delivered!.attempts.map(({ attempt, status_code, outcome, error }) => ({ attempt, status_code, outcome, error }))).toEqual([
      { attempt: 1, status_code: null, outcome: "retryable", error: expect.stringContaining("interrupted") },
      { attempt: 2, status_code: 200, outcome: "delivered", error: null },
    ]);
    expect(receiver.rejected).toEqual([]);
  });
});
