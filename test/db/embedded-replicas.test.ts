import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { chat, created, createVirtualKey, openAIProvider } from "../governance/support";
import { type JobBody, pollJob, submittedJob } from "../support/async-jobs";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type ReplicaDeployment, startReplicaNodes, TEST_SYNC_INTERVAL_SECONDS } from "../support/replicas";
import { startWebhookReceiver } from "../support/webhook-receiver";

let upstream: MockOpenAI;
let deployment: ReplicaDeployment;

beforeAll(async () => {
  upstream = startMockOpenAI();
  deployment = await startReplicaNodes({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } }, ["eu", "us"]);
});
afterAll(async () => {
  await deployment?.close();
  upstream.stop();
});

/** Another node sees a change within the sync interval plus one change check (1 s), with room for a loaded machine. */
const PROPAGATION_BOUND_MS = TEST_SYNC_INTERVAL_SECONDS * 1000 + 1000 + 1000;

test("the primary refuses a client without its token: the replicas' token is what lets them in", async () => {
  const anonymous = createClient({ url: deployment.primary.url });
  await expect(anonymous.execute("SELECT 1")).rejects.toThrow();
  anonymous.close();
});

test("a provider, a virtual key and a routing rule made on one node carry the other node's traffic within the sync interval and one change check", async () => {
  const [eu, us] = deployment.nodes as [TestGateway, TestGateway];
  const added = await eu.admin("/api/providers", {
    method: "POST",
    json: { provider: "groq", network_config: { base_url: upstream.baseUrl }, keys: [{ id: "groq-eu", value: "sk-groq-made-in-eu", models: ["*"] }] },
  });
  expect(added.status).toBe(201);
  const key = await createVirtualKey(eu, { name: "made-in-eu" });
  await created(eu, "/api/governance/routing-rules", { name: "to-groq", cel_expression: 'metadata["case"] == "replicas"', targets: [{ provider: "groq", model: "routed-model" }] });
  const madeAt = performance.now();

  // Read your writes: the node that answered the writes uses them at once.
  const onEu = await chat(eu, key.value, {}, { "x-gw-metadata-case": "replicas" });
  expect(onEu.status).toBe(200);
  await onEu.arrayBuffer();
  expect(onEu.headers.get("x-gw-provider")).toBe("groq");
  const listed = (await (await eu.admin("/api/governance/virtual-keys")).json()) as { virtual_keys: Array<{ id: string }> };
  expect(listed.virtual_keys.map((listedKey) => listedKey.id)).toContain(key.id);

  const routedOnUs = await eventually(
    async () => {
      const response = await chat(us, key.value, {}, { "x-gw-metadata-case": "replicas" });
      await response.arrayBuffer();
      return { status: response.status, provider: response.headers.get("x-gw-provider") };
    },
    (answer) => answer.status === 200 && answer.provider === "groq",
    PROPAGATION_BOUND_MS * 2,
  );
  const tookMs = performance.now() - madeAt;
  expect(routedOnUs).toEqual({ status: 200, provider: "groq" });
  expect(upstream.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-groq-made-in-eu");
  expect(upstream.requests.at(-1)!.body.model).toBe("routed-model");
  expect(tookMs).toBeLessThan(PROPAGATION_BOUND_MS);
});

test("/health names the node's region and database mode, the primary reachable and the replica's lag", async () => {
  const [eu] = deployment.nodes as [TestGateway];
  const health = (await (await fetch(`${eu.url}/health`)).json()) as Record<string, any>;
  expect(health).toMatchObject({ status: "ok", node: "gateway-eu", region: "eu", database: "ok", database_mode: "embedded_replica", primary_reachable: true });
  expect(health.replica_lag_ms).toBeLessThan(PROPAGATION_BOUND_MS);
});

test("request logs written on both nodes are all present on both, each with the region of the node that served it", async () => {
  const [eu, us] = deployment.nodes as [TestGateway, TestGateway];
  const key = await createVirtualKey(eu, { name: "logged-in-both-regions" });
  await eventually(
    async () => (await chat(us, key.value)).status,
    (status) => status === 200,
    PROPAGATION_BOUND_MS * 2,
  );
  const perNode = 4;
  for (const node of [eu, us]) {
    const answers = await Promise.all(Array.from({ length: perNode }, () => chat(node, key.value)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(perNode).fill(200));
  }
  const logsOn = async (node: TestGateway, query = "") => (await (await node.admin(`/api/logs?virtual_key_ids=${key.id}&limit=100${query}`)).json()) as { total: number; logs: Array<{ region: string }> };
  // The probe that waited for the key on `us` is logged too.
  const expected = await eventually(
    async () => [(await logsOn(eu)).total, (await logsOn(us)).total],
    ([onEu, onUs]) => onEu === onUs && onEu! >= 2 * perNode + 1,
    PROPAGATION_BOUND_MS * 3,
  );
  expect(expected[0]).toBe(expected[1]!);
  for (const node of [eu, us]) {
    const inEu = await logsOn(node, "&regions=eu");
    const inUs = await logsOn(node, "&regions=us");
    expect(inEu.total).toBe(perNode);
    expect(new Set(inEu.logs.map((log) => log.region))).toEqual(new Set(["eu"]));
    expect(inUs.total).toBe(expected[0]! - perNode);
    expect(new Set(inUs.logs.map((log) => log.region))).toEqual(new Set(["us"]));
  }
});

test("an async job submitted on one node is completed, its webhook delivered once, and its result read on the other node", async () => {
  const [eu, us] = deployment.nodes as [TestGateway, TestGateway];
  const receiver = startWebhookReceiver();
  try {
    const created = await eu.admin("/api/webhooks", { method: "POST", json: { name: "jobs", url: `${receiver.url}/jobs`, allow_private_network: true } });
    const { secret } = (await created.json()) as { secret: string };
    receiver.secrets.set("/jobs", secret);
    // The endpoint reaches the other node too before the job starts, so either may deliver.
    await eventually(
      async () => ((await (await us.admin("/api/webhooks")).json()) as { endpoints?: unknown[]; data?: unknown[] }),
      (list) => JSON.stringify(list).includes(receiver.url),
      PROPAGATION_BOUND_MS * 2,
    );
    const key = await createVirtualKey(eu, { name: "submits-jobs" });
    const job = await submittedJob(eu, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "done in one region" }] }, { "x-gw-vk": key.value });
    const [delivery] = await receiver.arrivals(1);
    expect(delivery!.payload.data.job_id).toBe(job.id);
    const onUs = await eventually(
      async () => (await pollJob(us, "chat/completions", job.id, { "x-gw-vk": key.value })).json() as Promise<JobBody>,
      (body) => body.status === "completed",
      PROPAGATION_BOUND_MS * 2,
    );
    expect(JSON.stringify(onUs.result)).toContain("done in one region");
    // Every node's lease-holding worker saw the job: still one delivery, never a second run.
    await Bun.sleep(PROPAGATION_BOUND_MS);
    expect(receiver.received.length).toBe(1);
    expect(receiver.rejected).toEqual([]);
  } finally {
    receiver.stop();
  }
});

test("a replica that cannot be one says so at start: a sync URL beside a database that is no local file, or a primary that refuses the token", async () => {
  await expect(startGateway({ database: { sync_url: deployment.primary.url } }, { databaseUrl: deployment.primary.url })).rejects.toThrow(/embedded replica needs a local file/);
  const dir = mkdtempSync(join(tmpdir(), "replica-refused-"));
  try {
    await expect(startGateway({ database: { sync_url: deployment.primary.url, auth_token: "not-a-token" } }, { databaseUrl: `file:${join(dir, "replica.db")}`, dir })).rejects.toThrow(
      /could not sync from its primary/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
