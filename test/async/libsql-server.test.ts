import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, type JobBody, pollJob, submittedJob } from "../support/async-jobs";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

const METRICS_TOKEN = "scrape-me-0123456789";
const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

describe.skipIf(!LIBSQL_SERVER_BINARY)("an async job whose libSQL server goes away while it runs", () => {
  let upstream: MockOpenAI;
  let database: LibsqlServer;
  let gw: TestGateway;
  let receiver: WebhookReceiver;

  const actorWriteRetries = async () => {
    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    return valueOf(metrics, "gateway_actor_write_retries_total") ?? 0;
  };

  /** Holds the next upstream call until `release`; `arrived` resolves once it is in. */
  const holdNextUpstreamCall = () => {
    const arrived = Promise.withResolvers<void>();
    const released = Promise.withResolvers<void>();
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      arrived.resolve();
      await released.promise;
    };
    return { arrived: arrived.promise, release: () => released.resolve() };
  };
  /** Kills the server, then lets the held call answer: the job finishes in memory and its writes wait for the server. */
  const finishWhileServerIsDown = async (release: () => void) => {
    await database.down();
    const retriesBefore = await actorWriteRetries();
    release();
    expect(await eventually(actorWriteRetries, (retries) => retries > retriesBefore, 5_000)).toBeGreaterThan(retriesBefore);
  };

  beforeAll(async () => {
    upstream = startMockOpenAI();
    receiver = startWebhookReceiver();
    database = await startLibsqlServer();
    gw = await startGateway(
      { telemetry: { metrics_token: METRICS_TOKEN }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
      { databaseServer: database },
    );
  });
  afterAll(async () => {
    await gw.close();
    upstream.stop();
    receiver.stop();
  });

  test("its webhook, which could not be queued while the server was away, is sent once it is back, once", async () => {
    const created = await gw.admin("/api/webhooks", { method: "POST", json: { name: "jobs", url: `${receiver.url}/jobs`, allow_private_network: true } });
    const { endpoint, secret } = (await created.json()) as { endpoint: { id: string }; secret: string };
    receiver.secrets.set("/jobs", secret);
    const upstreamCall = holdNextUpstreamCall();
    const job = await submittedJob(gw, "chat/completions", chat("notified after the outage"));
    await upstreamCall.arrived;
    await finishWhileServerIsDown(upstreamCall.release);
    await database.up();

    const [delivery] = await receiver.arrivals(1);
    expect(delivery!.payload.data.job_id).toBe(job.id);
    expect((await finishedJob(gw, "chat/completions", job.id)).status).toBe("completed");
    const history = (await (await gw.admin("/api/webhooks/deliveries")).json()) as { total_count: number };
    expect(history.total_count).toBe(1);
    expect(receiver.rejected).toEqual([]);
    expect((await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
  }, 20_000);

  test("its result, written once the server is back, is what the client collects; a restart does not run it again", async () => {
    const upstreamCall = holdNextUpstreamCall();
    const upstreamCallsBefore = upstream.requests.length;
    const job = await submittedJob(gw, "chat/completions", chat("finished during the outage"));
    await upstreamCall.arrived;
    expect(((await (await pollJob(gw, "chat/completions", job.id)).json()) as JobBody).status).toBe("processing");
    await finishWhileServerIsDown(upstreamCall.release);
    await database.up();
    const finished = await finishedJob(gw, "chat/completions", job.id);
    expect(finished.status).toBe("completed");
    expect(JSON.stringify(finished.result)).toContain("echo: finished during the outage");

    await gw.stop();
    gw = await gw.restart();
    expect(((await (await pollJob(gw, "chat/completions", job.id)).json()) as JobBody).status).toBe("completed");
    expect(upstream.requests.length - upstreamCallsBefore).toBe(1);
  });
});
