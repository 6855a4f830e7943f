import { afterAll, expect, test } from "bun:test";
import { finishedJob, type JobBody, pollJob, submittedJob } from "../support/async-jobs";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

const LEASE_MS = 300;
const upstream: MockOpenAI = startMockOpenAI();
const nodes: TestGateway[] = [];
afterAll(async () => {
  // The node that made the database deletes it on close: the other closes first.
  for (const node of nodes.reverse()) await node.close();
  upstream.stop();
});

const config = { providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } };
const promptOf = (request: RecordedRequest) => (request.body.messages as Array<{ content: string }>)[0]!.content;

test("a job runs on one node at a time; another node takes it over once its node stops renewing the lease", async () => {
  // The first node's lease clock is the test's. An hour ahead, its leases hold however late a
  // loaded machine runs its renewals; frozen in the past, it stands for a node that died.
  let firstNow = () => Date.now() + 3_600_000;
  const first = await startGateway(config, { runtime: { actorLease: { owner: "node-a", durationMs: LEASE_MS, now: () => firstNow() } } });
  nodes.push(first);

  const arrived = Promise.withResolvers<void>();
  upstream.onRequest = async () => {
    upstream.onRequest = undefined;
    arrived.resolve();
    // The first node's call never gets an answer.
    await new Promise(() => undefined);
  };
  const job = await submittedJob(first, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "held by node a" }] });
  await arrived.promise;

  // A second node starting on the same database leaves the job to the node that holds it.
  const second = await startGateway(config, { databaseUrl: first.databaseUrl, runtime: { actorLease: { owner: "node-b", durationMs: LEASE_MS, now: Date.now } } });
  nodes.push(second);
  // Nothing to await but time: three leases long, the second node must not have run the job.
  await Bun.sleep(3 * LEASE_MS);
  expect(upstream.requests.map(promptOf)).toEqual(["held by node a"]);
  expect(((await (await pollJob(second, "chat/completions", job.id)).json()) as JobBody).status).toBe("processing");

  firstNow = () => 0;
  const finished = await finishedJob(second, "chat/completions", job.id);
  expect(finished.status).toBe("completed");
  expect(upstream.requests.map(promptOf)).toEqual(["held by node a", "held by node a"]);
});
