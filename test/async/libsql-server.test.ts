import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, type JobBody, pollJob, submittedJob } from "../support/async-jobs";
import { eventually } from "../support/eventually";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";

const METRICS_TOKEN = "scrape-me-0123456789";
const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

/** A gateway on its own libSQL server, and the means to finish a job while that server is away. */
function outageTestbed(runtime: { actorClock?: TestClock } = {}) {
  const bed = {} as { upstream: MockOpenAI; database: LibsqlServer; gw: TestGateway };

  const actorWriteRetries = async () => {
    const metrics = parsePrometheus(await (await fetch(`${bed.gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
    return valueOf(metrics, "gateway_actor_write_retries_total") ?? 0;
  };

  beforeAll(async () => {
    bed.upstream = startMockOpenAI();
    bed.database = await startLibsqlServer();
    bed.gw = await startGateway(
      { telemetry: { metrics_token: METRICS_TOKEN }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: bed.upstream.baseUrl, max_retries: 0 } } } },
      { databaseServer: bed.database, runtime },
    );
  });
  afterAll(async () => {
    await bed.gw.close();
    bed.upstream.stop();
  });

  return {
    bed,
    /** Holds the next upstream call until `release`; `arrived` resolves once it is in. */
    holdNextUpstreamCall() {
      const arrived = Promise.withResolvers<void>();
      const released = Promise.withResolvers<void>();
      bed.upstream.onRequest = async () => {
        bed.upstream.onRequest = undefined;
        arrived.resolve();
        await released.promise;
      };
      return { arrived: arrived.promise, release: () => released.resolve() };
    },
    /** Kills the server, then lets the held call answer: the job finishes in memory and its writes wait for the server. */
    async finishWhileServerIsDown(release: () => void) {
      await bed.database.down();
      const retriesBefore = await actorWriteRetries();
      release();
      expect(await eventually(actorWriteRetries, (retries) => retries > retriesBefore, 5_000)).toBeGreaterThan(retriesBefore);
    },
  };
}

describe.skipIf(!LIBSQL_SERVER_BINARY)("an async job whose libSQL server goes away while it runs", () => {
  const { bed, holdNextUpstreamCall, finishWhileServerIsDown } = outageTestbed();
  let receiver: WebhookReceiver;
  beforeAll(() => {
    receiver = startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  test("its webhook, which could not be queued while the server was away, is sent once it is back, once", async () => {
    const created = await bed.gw.admin("/api/webhooks", { method: "POST", json: { name: "jobs", url: `${receiver.url}/jobs`, allow_private_network: true } });
    const { endpoint, secret } = (await created.json()) as { endpoint: { id: string }; secret: string };
    receiver.secrets.set("/jobs", secret);
    const upstreamCall = holdNextUpstreamCall();
    const job = await submittedJob(bed.gw, "chat/completions", chat("notified after the outage"));
    await upstreamCall.arrived;
    await finishWhileServerIsDown(upstreamCall.release);
    await bed.database.up();

    const [delivery] = await receiver.arrivals(1);
    expect(delivery!.payload.data.job_id).toBe(job.id);
    expect((await finishedJob(bed.gw, "chat/completions", job.id)).status).toBe("completed");
    const history = (await (await bed.gw.admin("/api/webhooks/deliveries")).json()) as { total_count: number };
    expect(history.total_count).toBe(1);
    expect(receiver.rejected).toEqual([]);
    expect((await bed.gw.admin(`/api/webhooks/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
  }, 20_000);

  test("its result, written once the server is back, is what the client collects; a restart does not run it again", async () => {
    const upstreamCall = holdNextUpstreamCall();
    const upstreamCallsBefore = bed.upstream.requests.length;
    const job = await submittedJob(bed.gw, "chat/completions", chat("finished during the outage"));
    await upstreamCall.arrived;
    expect(((await (await pollJob(bed.gw, "chat/completions", job.id)).json()) as JobBody).status).toBe("processing");
    await finishWhileServerIsDown(upstreamCall.release);
    await bed.database.up();
    const finished = await finishedJob(bed.gw, "chat/completions", job.id);
    expect(finished.status).toBe("completed");
    expect(JSON.stringify(finished.result)).toContain("echo: finished during the outage");

    await bed.gw.stop();
    bed.gw = await bed.gw.restart();
    expect(((await (await pollJob(bed.gw, "chat/completions", job.id)).json()) as JobBody).status).toBe("completed");
    expect(bed.upstream.requests.length - upstreamCallsBefore).toBe(1);
  });
});

describe.skipIf(!LIBSQL_SERVER_BINARY)("an async job that expires while its libSQL server is away", () => {
  const clock = new TestClock();
  const { bed, holdNextUpstreamCall, finishWhileServerIsDown } = outageTestbed({ actorClock: clock });

  test("is a 404 at once, though its row still holds an older state, and is not run again once the server is back", async () => {
    const upstreamCall = holdNextUpstreamCall();
    const upstreamCallsBefore = bed.upstream.requests.length;
    const job = await submittedJob(bed.gw, "chat/completions", chat("expired during the outage"), { "x-gw-async-job-result-ttl": "60" });
    await upstreamCall.arrived;
    await finishWhileServerIsDown(upstreamCall.release);
    // Its row still says processing: the writes since wait for the server.
    expect((await finishedJob(bed.gw, "chat/completions", job.id)).status).toBe("completed");
    await clock.timerSet(60_000);
    clock.increment(60_000);
    await expectGatewayError(await pollJob(bed.gw, "chat/completions", job.id), 404);

    await bed.database.up();
    await bed.gw.stop();
    bed.gw = await bed.gw.restart();
    await expectGatewayError(await pollJob(bed.gw, "chat/completions", job.id), 404);
    expect(bed.upstream.requests.length - upstreamCallsBefore).toBe(1);
  }, 20_000);
});
