import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { gatewayClient, registerAgent, taskIdOfEvent, userMessage } from "../support/a2a-client";
import { type SdkAgent, startSdkAgent } from "../support/a2a-sdk-agent";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { expectGatewayError } from "../support/gateway-error";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server";
import { text } from "../support/mcp-tools";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";
import { createEndpoint, type EndpointBody, historyUntil } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { createMcpClient, createVirtualKey, executeTool } from "../mcp/support";
import { actorDetail, actorUntil, eventsOf, expectContinuous, pathOf } from "./support";

const FLOW_TTL_SECONDS = 600;
let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let mcpUpstream: McpHttpServer;
let agent: SdkAgent;
let gw: TestGateway;
let endpoint: EndpointBody;
let submitKey: string;
const clock = new TestClock();

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  agent = await startSdkAgent();
  mcpUpstream = startMcpHttpServer({
    requireHeader: { name: "x-user-token", accepted: () => ["alice-token"] },
    tools: { whoami: { description: "Who the upstream thinks is calling", run: (_, headers) => text(`token ${String(headers["x-user-token"])}`) } },
  });
  gw = await startGateway(
    {
      edition: "enterprise",
      auth: AUTH_CONFIG,
      mcp: { per_user_flow_ttl_seconds: FLOW_TTL_SECONDS },
      providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
    },
    { runtime: { actorClock: clock } },
  );
  endpoint = await createEndpoint(gw, receiver, "/lifecycle", { max_retries: 3, retry_backoff_initial_seconds: 30, retry_backoff_max_seconds: 60 });
  await registerAgent(gw, "echo", agent.baseUrl);
  await createMcpClient(gw, { name: "notes", connection_type: "http", connection_string: mcpUpstream.url, auth_type: "per_user_headers", per_user_header_keys: ["X-User-Token"], tools_to_execute: ["*"] });
  submitKey = await createApiKey(gw, "header-submitter", ["MCP:Update"]);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  receiver.stop();
  await mcpUpstream.stop();
  await agent.stop();
});

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

describe("every transition of every actor is recorded, exactly the machine's path", () => {
  test("an async job that succeeds: pending, processing, completed (notifying, then retained)", async () => {
    const job = await submittedJob(gw, "chat/completions", chat("a job"));
    await finishedJob(gw, "chat/completions", job.id);
    const actor = await actorUntil(gw, "async-job", job.id, (found) => found.state_path === "completed.retained");
    expect(pathOf(actor)).toEqual(["pending", "processing", "completed.notifying", "completed.retained"]);
    expect(eventsOf(actor)).toEqual([
      "xstate.init",
      "xstate.done.actor.0.async-job.pending",
      "xstate.done.actor.0.async-job.processing",
      "xstate.done.actor.0.async-job.completed.notifying",
    ]);
    expect(actor.transitions[2]!.to).toEqual({ completed: "notifying" });
    expectContinuous(actor);
    expect(actor).toMatchObject({ kind: "async-job", id: job.id, state: { completed: "retained" }, status: "active", ended_at: null });
    // The result is kept for its ttl: that is the timer the job waits for.
    expect(Date.parse(actor.next_timer_at!)).toBe(Date.parse(job.expires_at));
  });

  test("a delivery that fails twice, then succeeds: three rounds of queued, attempting, each failure waiting for its retry", async () => {
    receiver.replies.push(500, 500, 200);
    const job = await submittedJob(gw, "chat/completions", chat("notify me"), { "x-gw-async-webhook": endpoint.name });
    const [delivery] = (await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "waiting_retry")).deliveries;
    const waiting = await actorUntil(gw, "webhook-delivery", delivery!.id, (found) => found.state_path === "waiting_retry");
    expect(waiting.next_timer_at).toBe(delivery!.next_attempt_at);
    // While it runs, its context is there to read.
    expect(waiting.context).toMatchObject({ deliveryId: delivery!.id, endpointId: endpoint.id, attempts: 1, lastStatusCode: 500, nextAttemptAt: Date.parse(delivery!.next_attempt_at!) });
    await clock.timerSet(30_000);
    clock.increment(30_000);
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.attempt_count === 2 && list.deliveries[0]?.status === "waiting_retry");
    await clock.timerSet(60_000);
    clock.increment(60_000);
    await historyUntil(gw, `?job_id=${job.id}`, (list) => list.deliveries[0]?.status === "delivered");

    const actor = await actorUntil(gw, "webhook-delivery", delivery!.id, (found) => found.status === "done");
    const round = ["queued", "attempting"];
    expect(pathOf(actor)).toEqual([...round, "waiting_retry", ...round, "waiting_retry", ...round, "delivered"]);
    const attemptDone = ["xstate.done.actor.0.webhook-delivery.queued", "xstate.done.actor.0.webhook-delivery.attempting"];
    const retryDue = "xstate.after.retryBackoff.webhook-delivery.waiting_retry";
    expect(eventsOf(actor)).toEqual(["xstate.init", ...attemptDone, retryDue, ...attemptDone, retryDue, ...attemptDone]);
    expectContinuous(actor);
    // The retries came when the clock said so: 30 s, then 60 s later.
    const at = actor.transitions.map((transition) => Date.parse(transition.at));
    expect(at[3]! - at[2]!).toBe(30_000);
    expect(at[6]! - at[5]!).toBe(60_000);
    // Ended: its snapshot is gone, its record stays.
    expect(actor).toMatchObject({ status: "done", state: "delivered", next_timer_at: null, context: null });
    expect(actor.ended_at).toBe(actor.transitions.at(-1)!.at);
  });

  test("a per-user header flow that completes: pending, verifying, consumed", async () => {
    const vk = await createVirtualKey(gw, "flow-owner");
    const required = await expectGatewayError(await executeTool(gw, "notes-whoami", {}, { "x-gw-vk": vk.value }), 401, { errorType: "caller_mcp_auth_required" });
    const flowId = (required.extra_fields as unknown as { mcp_auth_required: { session_id: string } }).mcp_auth_required.session_id;
    const submitted = await call(gw, `/api/mcp/per-user-headers/flows/${flowId}`, { method: "PUT", headers: bearer(submitKey), json: { headers: { "x-user-token": "alice-token" } } });
    expect(submitted.status).toBe(200);
    const actor = await actorUntil(gw, "per-user-header-flow", flowId, (found) => found.status === "done");
    expect(pathOf(actor)).toEqual(["pending", "verifying", "consumed"]);
    expect(eventsOf(actor)).toEqual(["xstate.init", "SUBMIT", "xstate.done.actor.0.per-user-header-flow.verifying"]);
    expectContinuous(actor);
  });

  test("a per-user header flow that expires: pending, then expired once its time is up", async () => {
    const required = await expectGatewayError(await executeTool(gw, "notes-whoami", {}, { "x-gw-mcp-session-id": "never-answers" }), 401, { errorType: "caller_mcp_auth_required" });
    const flowId = (required.extra_fields as unknown as { mcp_auth_required: { session_id: string } }).mcp_auth_required.session_id;
    const pending = await actorDetail(gw, "per-user-header-flow", flowId);
    expect(pending).toMatchObject({ state: "pending", status: "active" });
    const flow = (await (await gw.admin(`/api/mcp/per-user-headers/flows/${flowId}`)).json()) as { expires_at: string };
    // The expiry timer, armed when the flow started (a few ms after it was created).
    const late = Date.parse(pending.next_timer_at!) - Date.parse(flow.expires_at);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1_000);
    setSystemTime(new Date(Date.now() + (FLOW_TTL_SECONDS + 1) * 1000));
    await expectGatewayError(await gw.admin(`/api/mcp/per-user-headers/flows/${flowId}`), 410);
    setSystemTime();
    const actor = await actorUntil(gw, "per-user-header-flow", flowId, (found) => found.status === "done");
    expect(pathOf(actor)).toEqual(["pending", "expired"]);
    expect(eventsOf(actor)).toEqual(["xstate.init", "EXPIRE"]);
    expectContinuous(actor);
  });

  test("an A2A task streamed to completion: each status the gateway saw, ending completed", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const events = [];
    for await (const event of client.sendMessageStream(userMessage("echo this"))) events.push(event);
    const taskId = taskIdOfEvent(events[0]!)!;
    const actor = await actorUntil(gw, "a2a-task", `echo/${taskId}`, (found) => found.status === "done");
    expect(pathOf(actor)).toEqual(["submitted", "working", "completed"]);
    expect(eventsOf(actor)).toEqual(["xstate.init", "status.seen", "status.seen"]);
    expectContinuous(actor);
  });

  test("an A2A task that asks for input: the agent's repeat of input-required on the answer is no transition", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const asked = [];
    for await (const event of client.sendMessageStream(userMessage("ask"))) asked.push(event);
    const taskId = taskIdOfEvent(asked[0]!)!;
    const contextId = asked[0]!.payload?.$case === "task" ? asked[0]!.payload.value.contextId : "";
    for await (const _ of client.sendMessageStream(userMessage("echo Paris", taskId, contextId)));
    const actor = await actorUntil(gw, "a2a-task", `echo/${taskId}`, (found) => found.status === "done");
    expect(pathOf(actor)).toEqual(["submitted", "input-required", "working", "completed"]);
    expectContinuous(actor);
  });

  test("an A2A task cancelled while it works: it ends canceled", async () => {
    const client = await gatewayClient(gw, "echo", { transport: "JSONRPC" });
    const held = agent.nextHeldTask();
    const stream = client.sendMessageStream(userMessage("hold"));
    await stream.next();
    const taskId = await held;
    await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    await stream.return(undefined);
    const actor = await actorUntil(gw, "a2a-task", `echo/${taskId}`, (found) => found.status === "done");
    const seen = (await (await gw.admin(`/api/agents/history?task_id=${taskId}`)).json()) as { tasks: Array<{ transitions: Array<{ state: string }> }> };
    expect(pathOf(actor)).toEqual(seen.tasks[0]!.transitions.map((transition) => transition.state));
    expect(pathOf(actor).at(-1)).toBe("canceled");
    expectContinuous(actor);
  });
});
