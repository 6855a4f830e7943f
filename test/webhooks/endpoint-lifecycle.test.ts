import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint, deliveriesOf, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { actorUntil, pathOf } from "../lifecycles/support";

interface LifecycleView extends EndpointBody {
  state: "active" | "failing" | "disabled_automatically" | "disabled";
  state_since: string;
  failing_since: string | null;
  disabled_reason: string | null;
}

/** Short enough that the messages signed after it are within standardwebhooks' tolerance of the wall clock. */
const PERIOD_SECONDS = 60;
let upstream: MockOpenAI;
/** The receiver that fails while a test says so. */
let broken: WebhookReceiver;
/** A second endpoint's receiver, subscribed to the first one's lifecycle events. */
let watcher: WebhookReceiver;
let gw: TestGateway;
const clock = new TestClock();

beforeAll(async () => {
  upstream = startMockOpenAI();
  broken = startWebhookReceiver();
  watcher = startWebhookReceiver();
  gw = await startGateway(
    { edition: "enterprise", auth: AUTH_CONFIG, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
    { runtime: { actorClock: clock } },
  );
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  broken.stop();
  watcher.stop();
});

const readEndpoint = async (id: string) => (await (await gw.admin(`/api/webhooks/${id}`)).json()) as LifecycleView;

async function endpointUntil(id: string, accept: (endpoint: LifecycleView) => boolean): Promise<LifecycleView> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const endpoint = await readEndpoint(id);
    if (accept(endpoint)) return endpoint;
    if (performance.now() > deadline) throw new Error(`endpoint never reached it: ${JSON.stringify(endpoint)}`);
    await Bun.sleep(10);
  }
}

/** A job notifying `endpoint` by name, waited for until its delivery is final. */
async function notified(endpoint: EndpointBody, content: string) {
  const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }, { "x-gw-async-webhook": endpoint.name });
  await finishedJob(gw, "chat/completions", job.id);
  const final = new Set(["delivered", "failed", "exhausted", "skipped"]);
  return (await historyUntil(gw, `?job_id=${job.id}`, (list) => final.has(list.deliveries[0]?.status ?? ""))).deliveries[0]!;
}

describe("an endpoint whose receiver keeps failing", () => {
  test("goes failing, is disabled automatically after the period, skips new messages, tells its subscribers and the audit log; re-enabled, recover re-sends exactly what failed or was skipped, in order, under the original ids", async () => {
    const endpoint = await createEndpoint(gw, broken, "/broken", {
      max_concurrent_deliveries: 1,
      disable_after_failing_seconds: PERIOD_SECONDS,
      disable_after_failed_messages: 2,
    });
    const subscriber = await createEndpoint(gw, watcher, "/watcher", { events: ["webhook_endpoint.disabled", "webhook_endpoint.enabled"] });
    expect(await readEndpoint(endpoint.id)).toMatchObject({ state: "active", failing_since: null, disabled_reason: null, max_deliveries_per_second: 0, disable_after_failing_seconds: PERIOD_SECONDS, disable_after_failed_messages: 2 });
    const since = new Date(clock.now()).toISOString();

    // A 4xx fails a message for good at once.
    broken.replies.push(410, 410);
    const first = await notified(endpoint, "first");
    expect(first.status).toBe("failed");
    const failing = await endpointUntil(endpoint.id, (found) => found.state === "failing");
    expect(failing.failing_since).toBe(new Date(clock.now()).toISOString());
    const second = await notified(endpoint, "second");
    expect(second.status).toBe("failed");

    await clock.timerSet(PERIOD_SECONDS * 1000);
    clock.increment(PERIOD_SECONDS * 1000);
    const disabled = await endpointUntil(endpoint.id, (found) => found.state === "disabled_automatically");
    expect(disabled.disabled).toBe(false);
    expect(Date.parse(disabled.state_since) - Date.parse(failing.failing_since!)).toBe(PERIOD_SECONDS * 1000);
    expect(disabled.disabled_reason).toContain("2 failed messages");

    // The subscriber hears of it, signed (the receiver verifies with standardwebhooks).
    const [told] = await watcher.arrivals(1);

    expect(told!.payload).toMatchObject({ event: "webhook_endpoint.disabled", data: { endpoint_id: endpoint.id, name: endpoint.name, state: "disabled_automatically", failing_since: failing.failing_since } });
    expect(watcher.rejected).toEqual([]);
    const audit = (await (await gw.admin(`/api/governance/audit-logs?search=${endpoint.id}`)).json()) as { audit_logs: Array<{ action: string; target: { id: string }; initiator: { type: string } }> };
    expect(audit.audit_logs).toContainEqual(expect.objectContaining({ action: "Webhooks:DisableAutomatically", target: expect.objectContaining({ id: endpoint.id }), initiator: expect.objectContaining({ type: "system" }) }));

    // New messages are kept as skipped, not sent.
    const sentBefore = broken.received.length;
    const third = await notified(endpoint, "third");
    expect(third.status).toBe("skipped");
    expect(broken.received.length).toBe(sentBefore);
    expect((await deliveriesOf(gw, `?endpoint_id=${endpoint.id}&outcome=skipped`)).total_count).toBe(1);
    await expectGatewayError(await gw.admin(`/api/webhooks/${endpoint.id}/recover`, { method: "POST", json: { since } }), 409);

    const enabled = await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "PUT", json: { disabled: false } });
    expect(enabled.status).toBe(200);
    await endpointUntil(endpoint.id, (found) => found.state === "active" && found.disabled_reason === null);
    const [, toldEnabled] = await watcher.arrivals(2);
    expect(toldEnabled!.payload).toMatchObject({ event: "webhook_endpoint.enabled", data: { endpoint_id: endpoint.id, state: "active" } });

    const recovered = await gw.admin(`/api/webhooks/${endpoint.id}/recover`, { method: "POST", json: { since } });
    expect(recovered.status).toBe(202);
    const body = (await recovered.json()) as { queued: number; webhook_ids: string[] };
    expect(body).toEqual({ queued: 3, webhook_ids: [first.webhook_id, second.webhook_id, third.webhook_id] });
    const resent = (await broken.arrivals(sentBefore + 3)).slice(sentBefore);
    expect(resent.map((delivery) => delivery.headers.get("webhook-id"))).toEqual(body.webhook_ids);
    expect(broken.rejected).toEqual([]);
    // Recovering again finds nothing left to send.
    await historyUntil(gw, `?endpoint_id=${endpoint.id}&outcome=delivered`, (list) => list.total_count === 3);
    expect(((await (await gw.admin(`/api/webhooks/${endpoint.id}/recover`, { method: "POST", json: { since } })).json()) as { queued: number }).queued).toBe(0);

    // The endpoint's machine is visible with the other lifecycles.
    const actor = await actorUntil(gw, "webhook-endpoint", endpoint.id, (found) => found.state_path === "active" && found.transitions.length === 4);
    expect(pathOf(actor)).toEqual(["active", "failing", "disabled_automatically", "active"]);
    expect(actor.transitions.map((transition) => transition.event)).toEqual(["xstate.init", "delivery.failed", "xstate.after.failingPeriodLeft.webhook-endpoint.failing", "enable"]);
    expect((await (await gw.admin("/api/actors?kind=webhook-endpoint&limit=500")).json()) as { actors: Array<{ id: string }> }).toMatchObject({ actors: expect.arrayContaining([expect.objectContaining({ id: subscriber.id })]) });
  });

  test("a failing endpoint is active again on its first success; consecutive failed attempts make it failing too", async () => {
    const endpoint = await createEndpoint(gw, broken, "/flaky", { max_retries: 10, retry_backoff_initial_seconds: 1, retry_backoff_max_seconds: 1, failing_after_failed_attempts: 2 });
    broken.replies.push(500, 500);
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "flaky" }] }, { "x-gw-async-webhook": endpoint.name });
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.attempt_count === 1 && list.deliveries[0]?.status === "waiting_retry");
    await clock.timerSet(1_000);
    clock.increment(1_000);
    const failing = await endpointUntil(endpoint.id, (found) => found.state === "failing");
    expect(failing.consecutive_failures).toBe(2);
    await clock.timerSet(1_000);
    clock.increment(1_000);
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");
    const active = await endpointUntil(endpoint.id, (found) => found.state === "active");
    expect(active.failing_since).toBeNull();
  });

  test("disabled: true and false through the API move the endpoint to disabled and back", async () => {
    const endpoint = await createEndpoint(gw, broken, "/manual");
    await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "PUT", json: { disabled: true } });
    expect(await endpointUntil(endpoint.id, (found) => found.state === "disabled")).toMatchObject({ disabled: true, disabled_reason: "disabled through the API" });
    await gw.admin(`/api/webhooks/${endpoint.id}`, { method: "PUT", json: { disabled: false } });
    expect(await endpointUntil(endpoint.id, (found) => found.state === "active")).toMatchObject({ disabled: false, disabled_reason: null });
  });

  test("recover needs Webhooks:Update and a timestamp", async () => {
    const endpoint = await createEndpoint(gw, broken, "/guarded");
    const viewer = await createApiKey(gw, "webhook-viewer", ["Webhooks:View"]);
    await expectGatewayError(await call(gw, `/api/webhooks/${endpoint.id}/recover`, { method: "POST", headers: bearer(viewer), json: { since: "2026-01-01T00:00:00Z" } }), 403);
    await expectGatewayError(await gw.admin(`/api/webhooks/${endpoint.id}/recover`, { method: "POST", json: { since: "yesterday" } }), 400, { param: "since" });
    await expectGatewayError(await gw.admin("/api/webhooks/no-such-endpoint/recover", { method: "POST", json: { since: "2026-01-01T00:00:00Z" } }), 404);
  });

  test("the thresholds are integers with bounds: anything else is a 400 naming the field", async () => {
    for (const [field, value] of [
      ["max_deliveries_per_second", -1],
      ["failing_after_failed_attempts", 1.5],
      ["disable_after_failing_seconds", 2 ** 31],
      ["disable_after_failed_messages", "three"],
    ] as const) {
      await expectGatewayError(await gw.admin("/api/webhooks", { method: "POST", json: { name: `bad-${field}`, url: `${broken.url}/bad`, allow_private_network: true, [field]: value } }), 400, { param: field });
    }
  });
});
