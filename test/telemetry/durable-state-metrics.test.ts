import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createEndpoint, type DeliveryBody } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { type ParsedMetrics, parsePrometheus, valueOf } from "./prometheus-text";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway({
    telemetry: { metrics_allowlist: ["127.0.0.1", "::1"] },
    providers: { openai: { keys: [{ id: "k1", value: "sk-test" }], network_config: { base_url: upstream.baseUrl } } },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

const scrape = async () => parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());

/** Snapshots are written just after each transition: scrape (as Prometheus would) until the sample shows. */
async function scrapeUntil(accept: (metrics: ParsedMetrics) => boolean): Promise<ParsedMetrics> {
  for (;;) {
    const metrics = await scrape();
    if (accept(metrics)) return metrics;
    await Bun.sleep(5);
  }
}

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

describe("live actors by kind and state", () => {
  test("an async job is counted in each state it stands in, and leaves the count when it ends", async () => {
    const arrived = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    upstream.onRequest = async () => {
      arrived.resolve();
      await release.promise;
    };
    const job = await submittedJob(gw, "chat/completions", chat("hold me"));
    await arrived.promise;
    const processing = { kind: "async-job", state: "processing" };
    await scrapeUntil((metrics) => valueOf(metrics, "gateway_actors", processing) === 1);
    upstream.onRequest = undefined;
    release.resolve();
    expect((await finishedJob(gw, "chat/completions", job.id)).status).toBe("completed");
    const after = await scrapeUntil((metrics) => valueOf(metrics, "gateway_actors", { kind: "async-job", state: "completed.retained" }) === 1);
    expect(valueOf(after, "gateway_actors", processing)).toBeUndefined();
    expect(after.types.get("gateway_actors")).toBe("gauge");
  });
});

describe("webhook outcomes", () => {
  test("a delivered test message counts one delivered attempt and one delivered delivery", async () => {
    expect(valueOf(await scrape(), "gateway_webhook_delivery_attempts_total", { outcome: "delivered" })).toBeUndefined();
    const endpoint = await createEndpoint(gw, receiver, "/metrics-hook");
    const tested = await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    expect(((await tested.json()) as DeliveryBody).status).toBe("delivered");
    const after = await scrapeUntil((metrics) => valueOf(metrics, "gateway_webhook_delivery_attempts_total", { outcome: "delivered" }) === 1);
    expect(valueOf(after, "gateway_webhook_deliveries", { status: "delivered" })).toBe(1);
    expect(after.types.get("gateway_webhook_delivery_attempts_total")).toBe("counter");
  });
});
