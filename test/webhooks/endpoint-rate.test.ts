import { afterAll, beforeAll, expect, test } from "bun:test";
import { submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createEndpoint } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

const RATE = 50;
const JOBS = 100;
let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

/** The most arrivals within any one second. */
function busiestSecond(times: number[]): number {
  let most = 0;
  for (let start = 0, end = 0; start < times.length; start++) {
    while (end < times.length && times[end]! - times[start]! < 1_000) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

test("max_deliveries_per_second holds under a burst of 100 jobs: no second carries more, and none is lost", async () => {
  const endpoint = await createEndpoint(gw, receiver, "/rated", { max_deliveries_per_second: RATE });
  await Promise.all(
    Array.from({ length: JOBS }, (_, index) =>
      submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `burst ${index}` }] }, { "x-gw-async-webhook": endpoint.name }),
    ),
  );
  const arrived = (await receiver.arrivals(JOBS)).map((delivery) => delivery.arrivedAt).sort((a, b) => a - b);
  // Attempts are given turns 1/RATE s apart; a timer that fires late can bring two closer, so a second may hold a few more, never a burst.
  expect(busiestSecond(arrived)).toBeLessThanOrEqual(RATE + 3);
  expect(arrived.at(-1)! - arrived[0]!).toBeGreaterThanOrEqual(((JOBS - 1) / RATE) * 1000 * 0.9);
  expect(new Set(receiver.received.map((delivery) => delivery.headers.get("webhook-id"))).size).toBe(JOBS);
  expect(receiver.rejected).toEqual([]);
});
