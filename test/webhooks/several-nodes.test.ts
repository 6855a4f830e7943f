import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { submitJob, submittedJob } from "../support/async-jobs";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { expectGatewayError } from "../support/gateway-error";
import { createEndpoint, type DeliveryList, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { eventually } from "../support/eventually";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let first: TestGateway;
let second: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  const config = { providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } };
  [first, second] = await startNodes(config);
});
afterAll(async () => {
  await closeNodes([first, second]);
  upstream.stop();
  receiver.stop();
});

/** Each step waits up to a second for the other node's check: a test of several steps gets more than bun's 5 s. */
const SEVERAL_CHECKS_MS = 10_000;

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const notifying = (endpoint: EndpointBody) => ({ "x-gw-async-webhook": endpoint.name });

/** The endpoint as `node` serves it (undefined once it is gone there), polled until `accept` holds (nodes check each other's changes every second). */
const endpointOn = (node: TestGateway, id: string, accept: (endpoint: EndpointBody | undefined) => boolean) =>
  eventually(async () => {
    const response = await node.admin(`/api/webhooks/${id}`);
    if (response.status === 404) return (await response.arrayBuffer(), undefined);
    return (await response.json()) as EndpointBody;
  }, accept);

/** Writes on `node` and returns the endpoint as it answered. */
async function changed(node: TestGateway, path: string, init: { method: string; json?: unknown }): Promise<EndpointBody> {
  const response = await node.admin(path, init);
  const body = (await response.json()) as EndpointBody | { endpoint: EndpointBody };
  if (response.status !== 200) throw new Error(`${init.method} ${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return "endpoint" in body ? body.endpoint : body;
}

/** The verified delivery that notified of the job. */
async function arrivalFor(jobId: string) {
  for (let count = 1; ; ) {
    const received = await receiver.arrivals(count);
    const found = received.find((delivery) => delivery.payload.data.job_id === jobId);
    if (found) return found;
    count = received.length + 1;
  }
}

describe("webhook endpoints on two nodes sharing one database", () => {
  test("an endpoint created on one node is notified of the other node's jobs, then at its new URL and under its rotated secret", async () => {
    const endpoint = await createEndpoint(first, receiver, "/shared", { max_retries: 0 });
    expect((await endpointOn(second, endpoint.id, (seen) => seen !== undefined))?.name).toBe(endpoint.name);
    const job = await submittedJob(second, "chat/completions", chat("made on first, sent by second"), notifying(endpoint));
    expect((await arrivalFor(job.id)).path).toBe("/shared");

    receiver.secrets.set("/moved", receiver.secrets.get("/shared")!);
    const moved = await changed(first, `/api/webhooks/${endpoint.id}`, { method: "PUT", json: { url: `${receiver.url}/moved` } });
    expect((await endpointOn(second, endpoint.id, (seen) => seen?.updated_at === moved.updated_at))?.url).toBe(`${receiver.url}/moved`);
    const afterMove = await submittedJob(second, "chat/completions", chat("to the new URL"), notifying(endpoint));
    expect((await arrivalFor(afterMove.id)).path).toBe("/moved");

    const rotation = await first.admin(`/api/webhooks/${endpoint.id}/rotate-secret`, { method: "POST" });
    const { endpoint: rotated, secret } = (await rotation.json()) as { endpoint: EndpointBody; secret: string };
    receiver.secrets.set("/moved", secret);
    expect((await endpointOn(second, endpoint.id, (seen) => seen?.updated_at === rotated.updated_at))?.updated_at).toBe(rotated.updated_at);
    const afterRotation = await submittedJob(second, "chat/completions", chat("signed with the new secret"), notifying(endpoint));
    expect((await arrivalFor(afterRotation.id)).path).toBe("/moved");
    expect(receiver.rejected).toEqual([]);
  }, SEVERAL_CHECKS_MS);

  test("failed attempts made by either node add up in the endpoint's outcome counters, which both nodes show", async () => {
    const endpoint = await createEndpoint(first, receiver, "/counted");
    await endpointOn(second, endpoint.id, (seen) => seen !== undefined);
    receiver.replies.push(500, 500);
    for (const node of [first, second]) await node.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    for (const node of [first, second]) expect(await endpointOn(node, endpoint.id, () => true)).toMatchObject({ consecutive_failures: 2, last_failure_at: expect.any(String) });

    await second.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
    const listed = (await (await first.admin("/api/webhooks")).json()) as { webhooks: EndpointBody[] };
    expect(listed.webhooks.find((seen) => seen.id === endpoint.id)).toMatchObject({ consecutive_failures: 0, last_success_at: expect.any(String) });
  }, SEVERAL_CHECKS_MS);

  // The target is created before the control, so a delivery to it would be recorded before the control's arrives.
  test("an endpoint disabled on one node is no longer notified by the other; deleted, the other no longer knows its name", async () => {
    const target = await createEndpoint(first, receiver, "/leaving");
    const control = await createEndpoint(second, receiver, "/staying");
    await endpointOn(second, target.id, (seen) => seen !== undefined);
    const disabled = await changed(first, `/api/webhooks/${target.id}`, { method: "PUT", json: { disabled: true } });
    expect((await endpointOn(second, target.id, (seen) => seen?.updated_at === disabled.updated_at))?.disabled).toBe(true);

    const job = await submittedJob(second, "chat/completions", chat("for every enabled subscriber"));
    const settled = (list: DeliveryList) => list.deliveries.some((delivery) => delivery.endpoint_id === control.id) && list.deliveries.every((delivery) => delivery.status === "delivered");
    const { deliveries } = await historyUntil(second, `?job_id=${job.id}`, settled);
    expect(deliveries.map((delivery) => delivery.endpoint_id)).not.toContain(target.id);
    expect(receiver.received.filter((delivery) => delivery.payload.data.job_id === job.id).map((delivery) => delivery.path)).not.toContain("/leaving");

    expect((await first.admin(`/api/webhooks/${target.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await endpointOn(second, target.id, (seen) => seen === undefined)).toBeUndefined();
    const refused = await submitJob(second, "chat/completions", chat("to a deleted endpoint"), notifying(target));
    await expectGatewayError(refused, 400, { param: "x-gw-async-webhook", errorType: "caller_webhook_not_found" });
  }, SEVERAL_CHECKS_MS);

  test("a delivery in flight on one node arrives once, unharmed, while the other node changes its endpoint", async () => {
    const endpoint = await createEndpoint(first, receiver, "/held", { max_retries: 0 });
    await endpointOn(second, endpoint.id, (seen) => seen !== undefined);
    const reply = Promise.withResolvers<number>();
    receiver.replies.push(reply.promise);
    const job = await submittedJob(second, "chat/completions", chat("wait for it"), notifying(endpoint));
    await arrivalFor(job.id);

    const renamed = await changed(first, `/api/webhooks/${endpoint.id}`, { method: "PUT", json: { name: "held-renamed" } });
    expect((await endpointOn(second, endpoint.id, (seen) => seen?.updated_at === renamed.updated_at))?.name).toBe("held-renamed");
    reply.resolve(200);
    const { deliveries } = await historyUntil(second, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");
    expect(deliveries.map((delivery) => delivery.attempts.map((attempt) => attempt.status_code))).toEqual([[200]]);
    expect(receiver.received.filter((delivery) => delivery.payload.data.job_id === job.id)).toHaveLength(1);
  }, SEVERAL_CHECKS_MS);

  test("an endpoint deleted on one node cuts off the other node's delivery in flight to it", async () => {
    const endpoint = await createEndpoint(first, receiver, "/deleted-mid-flight", { max_retries: 0 });
    await endpointOn(second, endpoint.id, (seen) => seen !== undefined);
    receiver.replies.push("hang");
    const job = await submittedJob(second, "chat/completions", chat("never answered"), notifying(endpoint));
    await arrivalFor(job.id);
    expect(receiver.inFlight).toBe(1);

    expect((await first.admin(`/api/webhooks/${endpoint.id}`, { method: "DELETE" })).status).toBe(200);
    // The receiver never answers: only the other node dropping the delivery ends the request before its 10 s timeout.
    expect(await eventually(async () => receiver.inFlight, (inFlight) => inFlight === 0)).toBe(0);
  }, SEVERAL_CHECKS_MS);
});
