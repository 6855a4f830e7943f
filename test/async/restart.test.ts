import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, type JobBody, pollJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  gw = await startGateway({
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
    // One job at a time, so a second job is still pending when the gateway stops.
    async_inference: { max_concurrent_jobs: 1 },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
});

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const promptOf = (request: RecordedRequest) => (request.body.messages as Array<{ content: string }>)[0]!.content;

describe("a gateway killed while jobs are pending or processing resumes them after restart", () => {
  test("none is lost and none is reported twice", async () => {
    const created = await gw.admin("/api/webhooks", { method: "POST", json: { name: "jobs", url: `${receiver.url}/jobs`, allow_private_network: true } });
    receiver.secrets.set("/jobs", ((await created.json()) as { secret: string }).secret);

    const arrived = Promise.withResolvers<void>();
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      arrived.resolve();
      // The first call never gets an answer from this gateway: it is stopped meanwhile.
      await new Promise(() => undefined);
    };
    const running = await submittedJob(gw, "chat/completions", chat("running at the kill"));
    const waiting = await submittedJob(gw, "chat/completions", chat("pending at the kill"));
    await arrived.promise;
    expect(((await (await pollJob(gw, "chat/completions", running.id)).json()) as JobBody).status).toBe("processing");
    expect(((await (await pollJob(gw, "chat/completions", waiting.id)).json()) as JobBody).status).toBe("pending");

    await gw.stop();
    gw = await gw.restart();

    const [first, second] = await Promise.all([finishedJob(gw, "chat/completions", running.id), finishedJob(gw, "chat/completions", waiting.id)]);
    expect(first.status).toBe("completed");
    expect(second.status).toBe("completed");
    // The job that was running is run again; the pending one runs once.
    expect(upstream.requests.map(promptOf).sort()).toEqual(["pending at the kill", "running at the kill", "running at the kill"]);

    const deliveries = await receiver.arrivals(2);
    expect(deliveries.map((delivery) => delivery.payload.data.job_id).sort()).toEqual([running.id, waiting.id].sort());
    const history = (await (await gw.admin("/api/webhooks/deliveries")).json()) as { total_count: number; deliveries: Array<{ job_id: string; status: string }> };
    expect(history.total_count).toBe(2);
    expect(receiver.rejected).toEqual([]);
  });
});
