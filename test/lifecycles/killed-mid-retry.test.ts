import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { SETUP_TOKEN_HEADER } from "../../src/access/setup-lock";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { type ActorDetail, eventsOf, expectContinuous, pathOf } from "./support";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const SETUP_TOKEN = "killed-mid-retry-setup-token";
const workDir = mkdtempSync(join(tmpdir(), "gateway-killed-retry-"));

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
const started: Subprocess[] = [];

beforeAll(() => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  writeFileSync(
    join(workDir, "config.json"),
    JSON.stringify({ setup_token: SETUP_TOKEN, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } }),
  );
});
afterAll(async () => {
  for (const child of started) child.kill("SIGTERM");
  await Promise.all(started.map((child) => child.exited));
  upstream.stop();
  receiver.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** `bun src/main.ts` as its own process on the test's database, always as the same node; resolves with its URL once it listens. */
async function startGatewayProcess(): Promise<{ child: Subprocess; url: string }> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "--port", "0", "--config", join(workDir, "config.json")], {
    cwd: REPO_ROOT,
    env: { ...process.env, GATEWAY_DB_URL: `file:${join(workDir, "gateway.db")}`, GATEWAY_ENCRYPTION_KEY: "killed-retry-key", GATEWAY_NODE_ID: "node-under-test" },
    stdout: "pipe",
    stderr: "inherit",
  });
  started.push(child);
  const decoder = new TextDecoder();
  let output = "";
  for await (const chunk of child.stdout) {
    output += decoder.decode(chunk, { stream: true });
    const port = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output)?.[1];
    if (port) return { child, url: `http://127.0.0.1:${port}` };
  }
  throw new Error(`the gateway exited before listening:\n${output}`);
}

const admin = (url: string, path: string, init: RequestInit = {}) => fetch(`${url}${path}`, { ...init, headers: { [SETUP_TOKEN_HEADER]: SETUP_TOKEN, "content-type": "application/json", ...init.headers } });

async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (performance.now() > deadline) throw new Error(`never reached: ${JSON.stringify(value)}`);
    await Bun.sleep(20);
  }
}

test("a gateway killed (SIGKILL) while a delivery waits to retry, then restarted, shows one continuous history with the transitions of both processes", async () => {
  const first = await startGatewayProcess();
  const created = await admin(first.url, "/api/webhooks", { method: "POST", body: JSON.stringify({ name: "killed", url: `${receiver.url}/killed`, allow_private_network: true, max_retries: 3, retry_backoff_initial_seconds: 2, retry_backoff_max_seconds: 2 }) });
  expect(created.status).toBe(201);
  const { secret } = (await created.json()) as { secret: string };
  receiver.secrets.set("/killed", secret);
  receiver.replies.push(500);
  const submitted = await fetch(`${first.url}/v1/async/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-async-webhook": "killed" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "notify me" }] }),
  });
  const job = (await submitted.json()) as { id: string };
  const deliveryId = await until(
    async () => ((await (await admin(first.url, `/api/webhooks/deliveries?job_id=${job.id}`)).json()) as { deliveries: Array<{ id: string; status: string }> }).deliveries[0],
    (delivery) => delivery?.status === "waiting_retry",
  ).then((delivery) => delivery!.id);
  const detail = (url: string) => admin(url, `/api/actors/webhook-delivery/${deliveryId}`).then(async (response) => (response.status === 200 ? ((await response.json()) as ActorDetail) : undefined));
  await until(() => detail(first.url), (actor) => actor?.state_path === "waiting_retry");

  first.child.kill("SIGKILL");
  await first.child.exited;
  const killedAt = Date.now();

  const second = await startGatewayProcess();
  const actor = (await until(() => detail(second.url), (found) => found?.status === "done"))!;
  expect(pathOf(actor)).toEqual(["queued", "attempting", "waiting_retry", "queued", "attempting", "delivered"]);
  const attemptDone = ["xstate.done.actor.0.webhook-delivery.queued", "xstate.done.actor.0.webhook-delivery.attempting"];
  expect(eventsOf(actor)).toEqual(["xstate.init", ...attemptDone, "xstate.after.retryBackoff.webhook-delivery.waiting_retry", ...attemptDone]);
  expectContinuous(actor);
  // The first three are the killed process's, the rest the restarted one's.
  const times = actor.transitions.map((transition) => Date.parse(transition.at));
  expect(times.slice(0, 3).every((at) => at < killedAt)).toBe(true);
  expect(times.slice(3).every((at) => at > killedAt)).toBe(true);
  expect(receiver.received.filter((delivery) => delivery.path === "/killed").map((delivery) => delivery.headers.get("webhook-id"))).toHaveLength(2);
});

test("an endpoint failing when its gateway is killed (SIGKILL) is still failing after the restart, and is disabled automatically exactly when it would have been", async () => {
  const refusing = startWebhookReceiver();
  try {
    const first = await startGatewayProcess();
    const created = await admin(first.url, "/api/webhooks", {
      method: "POST",
      body: JSON.stringify({ name: "refusing", url: `${refusing.url}/gone`, allow_private_network: true, disable_after_failing_seconds: 3, disable_after_failed_messages: 1 }),
    });
    const { endpoint, secret } = (await created.json()) as { endpoint: { id: string }; secret: string };
    refusing.secrets.set("/gone", secret);
    // A 410 fails the message for good: the endpoint goes failing at once.
    refusing.replies.push(410);
    await fetch(`${first.url}/v1/async/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-async-webhook": "refusing" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "to a receiver that is gone" }] }),
    });
    const readEndpoint = async (url: string) => (await (await admin(url, `/api/webhooks/${endpoint.id}`)).json()) as { state: string; state_since: string; failing_since: string | null };
    const failing = await until(() => readEndpoint(first.url), (found) => found.state === "failing");

    first.child.kill("SIGKILL");
    await first.child.exited;

    const second = await startGatewayProcess();
    expect((await readEndpoint(second.url)).failing_since).toBe(failing.failing_since);
    const disabled = await until(() => readEndpoint(second.url), (found) => found.state === "disabled_automatically");
    expect(Date.parse(disabled.state_since) - Date.parse(failing.failing_since!)).toBe(3_000);
  } finally {
    refusing.stop();
  }
});
