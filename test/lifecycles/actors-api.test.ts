import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { createMachine } from "xstate";
import { perUserHeaderFlowMachine } from "../../actors/per-user-header-flow";
import { type EventSourceMessage, parseSSE } from "../../src/http/sse";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { text } from "../support/mcp-tools";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { eventually } from "../support/eventually";
import { createEndpoint, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { createMcpClient, createVirtualKey, executeTool } from "../mcp/support";
import { type ActorDetail, type ActorList, actorDetail, actorList, actorUntil, pathOf, type TransitionBody } from "./support";

const PROVIDER_KEY = "sk-upstream-provider-key-never-shown";
const RECEIVER_HEADER = "receiver-header-value-never-shown";
const USER_HEADER = "per-user-header-value-never-shown";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let mcpUpstream: McpHttpServer;
let gw: TestGateway;
let endpoint: EndpointBody;
const clock = new TestClock();

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  mcpUpstream = startMcpHttpServer({
    requireHeader: { name: "x-user-token", accepted: () => [USER_HEADER] },
    tools: { whoami: { description: "Who the upstream thinks is calling", run: () => text("someone") } },
  });
  gw = await startGateway(
    {
      edition: "enterprise",
      auth: AUTH_CONFIG,
      providers: { openai: { keys: [{ id: "k1", value: PROVIDER_KEY }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
    },
    { runtime: { actorClock: clock } },
  );
  endpoint = await createEndpoint(gw, receiver, "/api-test", { headers: { "X-Receiver-Token": RECEIVER_HEADER } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
  await mcpUpstream.stop();
});

/** A test delivery to the endpoint (one attempt): an actor that runs its whole life at once. */
async function testDelivery(): Promise<string> {
  const response = await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

async function stateNames(on: TestGateway, kind: string): Promise<string[]> {
  const machine = (await (await on.admin(`/api/actors/machines/${kind}`)).json()) as { root: { states: Record<string, unknown> } };
  return Object.keys(machine.root.states);
}

interface StateBody {
  id: string;
  type: string;
  initial?: string[];
  invoke: Array<{ src: string }>;
  transitions: Array<{ event: string; trigger: string; targets: string[]; guard?: { name: string; params?: unknown }; delay?: number | string; actions: string[] }>;
  states: Record<string, StateBody>;
}

describe("GET /api/actors/machines: the machines as data, read from their definitions", () => {
  test("every kind, with its states, initial and final states, transitions, guards, delays and invoked actors", async () => {
    const { machines } = (await (await gw.admin("/api/actors/machines")).json()) as { machines: Array<{ kind: string; id: string; root: StateBody }> };
    expect(machines.map((machine) => machine.kind)).toEqual(["async-job", "webhook-endpoint", "webhook-delivery", "per-user-header-flow", "a2a-task", "log-sink", "alert-rule", "alert-notification", "stream"]);
    // Parallel regions: an alert rule's condition and its evaluation timer.
    const alert = machines.find((machine) => machine.kind === "alert-rule")!.root;
    expect(alert.type).toBe("parallel");
    expect(Object.keys(alert.states)).toEqual(["condition", "evaluation"]);
    expect(Object.keys(alert.states.condition!.states)).toEqual(["ok", "pending", "firing", "resolved"]);
    expect(Object.keys(alert.states.condition!.states.firing!.states)).toEqual(["unacknowledged", "acknowledged"]);
    const delivery = machines.find((machine) => machine.kind === "webhook-delivery")!.root;
    expect(delivery.initial).toEqual(["webhook-delivery.queued"]);
    expect(Object.keys(delivery.states)).toEqual(["queued", "attempting", "waiting_retry", "delivered", "failed", "exhausted"]);
    expect(["delivered", "failed", "exhausted"].map((key) => delivery.states[key]!.type)).toEqual(["final", "final", "final"]);
    expect(delivery.states.queued!.invoke.map((invoked) => invoked.src)).toEqual(["acquireSlot"]);
    expect(delivery.states.waiting_retry!.transitions).toContainEqual(expect.objectContaining({ trigger: "delayed", delay: "retryBackoff", targets: ["webhook-delivery.queued"] }));
    const attempted = delivery.states.attempting!.transitions.filter((transition) => transition.event === "xstate.done.actor.0.webhook-delivery.attempting");
    expect(attempted.map((transition) => [transition.guard?.name, transition.targets])).toEqual([
      ["wasDelivered", ["webhook-delivery.delivered"]],
      ["failedPermanently", ["webhook-delivery.failed"]],
      ["hasRetriesLeft", ["webhook-delivery.waiting_retry"]],
      [undefined, ["webhook-delivery.exhausted"]],
    ]);
    // Nested states: a finished job notifies, then keeps its result.
    const job = machines.find((machine) => machine.kind === "async-job")!.root;
    expect(job.states.completed).toMatchObject({ type: "compound", initial: ["async-job.completed.notifying"] });
    expect(Object.keys(job.states.completed!.states)).toEqual(["notifying", "notifyWaiting", "retained"]);
    // An eventless transition with a guard's fixed params.
    const task = machines.find((machine) => machine.kind === "a2a-task")!.root;
    expect(task.states.seen!.transitions).toContainEqual(expect.objectContaining({ trigger: "eventless", event: "", guard: { name: "firstSeenIn", params: { state: "working" } }, targets: ["a2a-task.working"] }));
  });

  test("one kind; an unknown kind is a 400 naming the field", async () => {
    const one = (await (await gw.admin("/api/actors/machines/per-user-header-flow")).json()) as { kind: string; root: StateBody };
    expect(one.kind).toBe("per-user-header-flow");
    expect(one.root.states.pending!.transitions.map((transition) => transition.event)).toContain("SUBMIT");
    await expectGatewayError(await gw.admin("/api/actors/machines/no-such-kind"), 400, { param: "kind" });
  });

  test("a gateway running a changed machine describes the change", async () => {
    const { config } = perUserHeaderFlowMachine;
    const changed = createMachine({
      ...config,
      states: { ...config.states, pending: { ...config.states!.pending, after: { untilExpiry: "expired", 3_600_000: "abandoned" } }, abandoned: { type: "final" } },
    } as never) as unknown as typeof perUserHeaderFlowMachine;
    const other = await startGateway({}, { runtime: { actorMachines: { "per-user-header-flow": changed } } });
    try {
      expect(await stateNames(other, "per-user-header-flow")).toEqual(["pending", "verifying", "consumed", "expired", "abandoned"]);
      const machine = (await (await other.admin("/api/actors/machines/per-user-header-flow")).json()) as { root: StateBody };
      expect(machine.root.states.pending!.transitions).toContainEqual(expect.objectContaining({ trigger: "delayed", delay: 3_600_000, targets: ["per-user-header-flow.abandoned"] }));
      expect(await stateNames(gw, "per-user-header-flow")).toEqual(["pending", "verifying", "consumed", "expired"]);
    } finally {
      await other.close();
    }
  });
});

describe("GET /api/actors and /api/actors/counts", () => {
  test("lists instances filtered by kind, state, status and node, paged; counts per kind and state", async () => {
    const ids = [await testDelivery(), await testDelivery(), await testDelivery()];
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "listed" }] });
    await finishedJob(gw, "chat/completions", job.id);
    await actorUntil(gw, "async-job", job.id, (found) => found.state_path === "completed.retained");
    // The job notified the endpoint too: that delivery ends before anything is counted.
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");
    await eventually(() => actorList(gw, "?kind=webhook-delivery&status=active"), (list) => list.total_count === 0);

    const deliveries = await actorList(gw, "?kind=webhook-delivery&limit=500");
    expect(deliveries.actors.every((actor) => actor.kind === "webhook-delivery")).toBe(true);
    expect(deliveries.actors.map((actor) => actor.id)).toEqual(expect.arrayContaining(ids));
    const delivered = deliveries.actors.find((actor) => actor.id === ids[0])!;
    expect(delivered).toMatchObject({ state: "delivered", state_path: "delivered", status: "done", next_timer_at: null, lease_until: null });
    expect(Date.parse(delivered.ended_at!)).toBeGreaterThanOrEqual(Date.parse(delivered.created_at));

    // A parent state matches the states inside it.
    const completed = await actorList(gw, "?kind=async-job&state=completed");
    expect(completed.actors.map((actor) => actor.id)).toContain(job.id);
    expect(completed.actors.find((actor) => actor.id === job.id)).toMatchObject({ state: { completed: "retained" }, state_path: "completed.retained", status: "active" });
    // A running actor's lease: held by its node until a moment ahead, renewed as it runs.
    expect(Date.parse(completed.actors.find((actor) => actor.id === job.id)!.lease_until!)).toBeGreaterThan(Date.now());
    expect((await actorList(gw, "?kind=async-job&state=pending")).actors.map((actor) => actor.id)).not.toContain(job.id);
    expect((await actorList(gw, "?status=active&limit=500")).actors.every((actor) => actor.status === "active")).toBe(true);
    const node = completed.actors[0]!.node;
    expect((await actorList(gw, `?node=${node}&limit=500`)).total_count).toBe((await actorList(gw, "?limit=500")).total_count);
    expect((await actorList(gw, "?node=another-node")).total_count).toBe(0);

    const first = await actorList(gw, "?kind=webhook-delivery&limit=2");
    const second = await actorList(gw, "?kind=webhook-delivery&limit=2&offset=2");
    expect(first).toMatchObject({ count: 2, limit: 2, offset: 0, total_count: deliveries.total_count });
    expect(second.offset).toBe(2);
    expect(new Set([...first.actors, ...second.actors].map((actor) => actor.id)).size).toBe(first.count + second.count);

    const { counts, total } = (await (await gw.admin("/api/actors/counts")).json()) as { counts: Array<{ kind: string; state: string; status: string; count: number }>; total: number };
    expect(counts).toContainEqual({ kind: "webhook-delivery", state: "delivered", status: "done", count: deliveries.actors.filter((actor) => actor.state_path === "delivered").length });
    expect(counts.find((row) => row.kind === "async-job" && row.state === "completed.retained")!.count).toBeGreaterThanOrEqual(1);
    expect(total).toBe((await actorList(gw, "?limit=1")).total_count);
  });

  test("bad filters and pages are a 400 naming the field", async () => {
    for (const [query, param] of [
      ["?kind=no-such-kind", "kind"],
      ["?status=sleeping", "status"],
      ["?limit=0", "limit"],
      ["?limit=1.5", "limit"],
      ["?limit=501", "limit"],
      ["?offset=-1", "offset"],
      ["?state=", "state"],
    ] as const)
      await expectGatewayError(await gw.admin(`/api/actors${query}`), 400, { param });
  });

  test("an unknown actor is a 404; an A2A task's id (agent/task) is one path segment, encoded", async () => {
    await expectGatewayError(await gw.admin("/api/actors/webhook-delivery/dlv_unknown"), 404);
    await expectGatewayError(await gw.admin("/api/actors/a2a-task/agent%2Funknown"), 404);
  });
});

/** Reads server-sent transitions from `response` until `enough` says so. */
async function readTransitions(response: Response, enough: (seen: TransitionBody[]) => boolean): Promise<TransitionBody[]> {
  const seen: TransitionBody[] = [];
  const reader = response.body!.pipeThrough(parseSSE()).getReader();
  try {
    while (!enough(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      if ((value as EventSourceMessage).event === "transition") seen.push(JSON.parse(value!.data) as TransitionBody);
    }
  } finally {
    await reader.cancel();
  }
  return seen;
}

describe("GET /api/actors/events: transitions as they happen", () => {
  test("streams each transition once committed, filtered by kind and id, in the order recorded", async () => {
    const all = await gw.admin("/api/actors/events?kind=webhook-delivery");
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toStartWith("text/event-stream");
    const id = await testDelivery();
    const streamed = await readTransitions(all, (seen) => seen.some((transition) => transition.id === id && transition.to_path === "delivered"));
    const recorded = await actorDetail(gw, "webhook-delivery", id);
    expect(streamed.filter((transition) => transition.id === id)).toEqual(recorded.transitions);

    const one = await gw.admin(`/api/actors/events?id=${encodeURIComponent("nothing-yet")}`);
    const other = await testDelivery();
    await actorUntil(gw, "webhook-delivery", other, (found) => found.status === "done");
    const none = await Promise.race([readTransitions(one, (seen) => seen.length > 0), Bun.sleep(600).then(() => [] as TransitionBody[])]);
    expect(none).toEqual([]);
    await expectGatewayError(await gw.admin("/api/actors/events?kind=nope"), 400, { param: "kind" });
  });
});

describe("access: management routes with a read permission of their own", () => {
  test("401 without credentials, 403 without Actors:View, 200 with it", async () => {
    const id = await testDelivery();
    const paths = ["/api/actors", "/api/actors/counts", "/api/actors/machines", "/api/actors/machines/async-job", `/api/actors/webhook-delivery/${id}`, "/api/actors/events"];
    const reader = await createApiKey(gw, "actor-reader", ["Actors:View"]);
    const other = await createApiKey(gw, "webhook-reader", ["Webhooks:View"]);
    for (const path of paths) {
      await expectGatewayError(await call(gw, path), 401);
      await expectGatewayError(await call(gw, path, { headers: bearer(other) }), 403);
      const allowed = await call(gw, path, { headers: bearer(reader) });
      expect({ path, status: allowed.status }).toEqual({ path, status: 200 });
      await allowed.body?.cancel();
    }
  });
});

describe("redaction: no credential, header value, secret or sealed request in any answer", () => {
  test("across a job held mid-run, deliveries with header values, and a per-user header flow", async () => {
    const vk = await createVirtualKey(gw, "redaction-caller");
    const events = await gw.admin("/api/actors/events");
    const gate = Promise.withResolvers<void>();
    upstream.onRequest = () => gate.promise;
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "a prompt nobody else reads" }] }, { "x-gw-async-webhook": endpoint.name, authorization: `Bearer ${vk.value}` });
    const running = await actorUntil(gw, "async-job", job.id, (found) => found.state_path === "processing");
    const database = createClient({ url: gw.databaseUrl });
    const stored = await database.execute({ sql: "select snapshot from actor_snapshots where kind = 'async-job' and id = ?", args: [job.id] });
    database.close();
    const sealed = (JSON.parse(String(stored.rows[0]!.snapshot)) as { context: { sealedRequest: string } }).context.sealedRequest;
    expect(sealed.length).toBeGreaterThan(20);
    expect(running.context).toMatchObject({ id: job.id, sealedRequest: "[redacted]", owner: "[redacted]" });

    await createMcpClient(gw, { name: "private_notes", connection_type: "http", connection_string: mcpUpstream.url, auth_type: "per_user_headers", per_user_header_keys: ["X-User-Token"], tools_to_execute: ["*"] });
    const required = await expectGatewayError(await executeTool(gw, "private_notes-whoami", {}, { "x-gw-vk": vk.value }), 401, { errorType: "caller_mcp_auth_required" });
    const flowId = (required.extra_fields as unknown as { mcp_auth_required: { session_id: string } }).mcp_auth_required.session_id;
    const submitter = await createApiKey(gw, "redaction-submitter", ["MCP:Update"]);
    const submitted = await call(gw, `/api/mcp/per-user-headers/flows/${flowId}`, { method: "PUT", headers: bearer(submitter), json: { headers: { "x-user-token": USER_HEADER } } });
    expect(submitted.status).toBe(200);

    gate.resolve();
    upstream.onRequest = undefined;
    await finishedJob(gw, "chat/completions", job.id, { authorization: `Bearer ${vk.value}` });
    const finished = await actorUntil(gw, "async-job", job.id, (found) => found.state_path === "completed.retained");
    expect(finished.context).toMatchObject({ response: { status: 200, body: "[redacted]" } });
    const [delivery] = (await (await gw.admin(`/api/webhooks/deliveries?job_id=${job.id}`)).json() as { deliveries: Array<{ id: string }> }).deliveries;
    await actorUntil(gw, "webhook-delivery", delivery!.id, (found) => found.status === "done");
    await actorUntil(gw, "per-user-header-flow", flowId, (found) => found.status === "done");

    const list = (await (await gw.admin("/api/actors?limit=500")).json()) as ActorList;
    const answers = [JSON.stringify(running), JSON.stringify(list), await (await gw.admin("/api/actors/counts")).text(), await (await gw.admin("/api/actors/machines")).text()];
    for (const actor of list.actors) answers.push(await (await gw.admin(`/api/actors/${actor.kind}/${encodeURIComponent(actor.id)}`)).text());
    const streamed = await readTransitions(events, (seen) => seen.some((transition) => transition.id === flowId && transition.to_path === "consumed"));
    answers.push(JSON.stringify(streamed));
    const everything = answers.join("\n");
    for (const secret of [PROVIDER_KEY, RECEIVER_HEADER, USER_HEADER, receiver.secrets.get("/api-test")!, sealed, vk.value, "a prompt nobody else reads"]) expect(everything).not.toContain(secret);
    expect(everything).toContain(job.id);
  });
});

describe("retention: an ended actor's history is swept once the retention has passed", () => {
  test("ended actors older than the retention go with their transitions; running ones stay", async () => {
    const ended = await testDelivery();
    await actorUntil(gw, "webhook-delivery", ended, (found) => found.status === "done");
    const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "kept a while" }] }, { "x-gw-async-job-result-ttl": String(30 * 86_400) });
    await finishedJob(gw, "chat/completions", job.id);
    await actorUntil(gw, "async-job", job.id, (found) => found.state_path === "completed.retained");
    clock.increment(6 * 86_400_000);
    await gw.stop();
    gw = await gw.restart();
    expect((await actorDetail(gw, "webhook-delivery", ended)).status).toBe("done");

    clock.increment(86_400_000 + 1);
    await gw.stop();
    gw = await gw.restart();
    const swept = await (async () => {
      for (;;) {
        const response = await gw.admin(`/api/actors/webhook-delivery/${ended}`);
        await response.arrayBuffer();
        if (response.status === 404) return true;
        await Bun.sleep(10);
      }
    })();
    expect(swept).toBe(true);
    const kept: ActorDetail = await actorDetail(gw, "async-job", job.id);
    expect(pathOf(kept)).toEqual(["pending", "processing", "completed.notifying", "completed.retained"]);
  });
});
