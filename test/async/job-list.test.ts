import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { finishedJob, type JobBody, submittedJob } from "../support/async-jobs";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";

interface ListedJob extends JobBody {
  route: string;
  webhook?: string;
}

interface JobPage {
  jobs: ListedJob[];
  count: number;
  total_count: number;
  limit: number;
  offset: number;
}

const UPSTREAM_KEY = "sk-upstream-secret";

let upstream: MockOpenAI;
let gw: TestGateway;
let virtualKey: string;
const clock = new TestClock();
const submitted: JobBody[] = [];

const chat = (content: string) => ({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });

async function list(query = ""): Promise<JobPage> {
  const response = await gw.admin(`/api/async-jobs${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as JobPage;
}

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } }, { runtime: { actorClock: clock } });
  const created = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name: "lister" } });
  virtualKey = ((await created.json()) as { virtual_key: { value: string } }).virtual_key.value;
  const caller = { authorization: `Bearer ${virtualKey}` };
  // Oldest first: a chat that completes, a completion the upstream refuses, an embedding.
  submitted.push(await submittedJob(gw, "chat/completions", chat("list me"), caller));
  await finishedJob(gw, "chat/completions", submitted[0]!.id, caller);
  upstream.faults.push({ kind: "status", status: 400, message: "that prompt is not allowed" });
  submitted.push(await submittedJob(gw, "completions", { model: "openai/gpt-3.5-turbo-instruct", prompt: "nope" }, caller));
  await finishedJob(gw, "completions", submitted[1]!.id, caller);
  submitted.push(await submittedJob(gw, "embeddings", { model: "openai/text-embedding-3-small", input: "alpha" }, { ...caller, "x-gw-async-job-result-ttl": "60" }));
  await finishedJob(gw, "embeddings", submitted[2]!.id, caller);
});
afterAll(async () => {
  await gw?.close();
  upstream?.stop();
});

describe("GET /api/async-jobs", () => {
  test("lists every job newest first, with its state and its result or error, as its owner polls it", async () => {
    const page = await list();
    expect(page.jobs.map((job) => job.id)).toEqual(submitted.map((job) => job.id).toReversed());
    expect(page).toMatchObject({ count: 3, total_count: 3, limit: 50, offset: 0 });
    const [embedding, completion, chatJob] = page.jobs;
    expect(chatJob).toMatchObject({ status: "completed", status_code: 200, request_type: "chat.completion", route: "chat/completions" });
    expect((chatJob!.result as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: list me");
    expect(completion).toMatchObject({ status: "failed", status_code: 400, request_type: "text_completion" });
    expect(completion!.error!.error.message).toContain("that prompt is not allowed");
    expect(embedding!.request_type).toBe("embedding");
    expect(chatJob).toEqual(await finishedJob(gw, "chat/completions", chatJob!.id, { authorization: `Bearer ${virtualKey}` }).then((polled) => ({ ...polled, route: "chat/completions" })));
  });

  test("filters by status and by request type", async () => {
    expect((await list("?status=failed")).jobs.map((job) => job.id)).toEqual([submitted[1]!.id]);
    expect((await list("?status=completed")).jobs.map((job) => job.id)).toEqual([submitted[2]!.id, submitted[0]!.id]);
    expect((await list("?status=pending")).jobs).toEqual([]);
    const chats = await list("?request_type=chat.completion");
    expect(chats.jobs.map((job) => job.id)).toEqual([submitted[0]!.id]);
    expect(chats.total_count).toBe(1);
    expect((await list("?status=failed&request_type=embedding")).total_count).toBe(0);
  });

  test("pages with limit and offset; total_count counts them all", async () => {
    const first = await list("?limit=2");
    const second = await list("?limit=2&offset=2");
    expect(first).toMatchObject({ count: 2, total_count: 3, limit: 2, offset: 0 });
    expect(second).toMatchObject({ count: 1, total_count: 3, offset: 2 });
    expect([...first.jobs, ...second.jobs].map((job) => job.id)).toEqual(submitted.map((job) => job.id).toReversed());
  });

  test("neither the virtual key, nor the upstream key, nor the sealed request shows", async () => {
    const text = await (await gw.admin("/api/async-jobs")).text();
    expect(text).not.toContain(virtualKey);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain("sealed");
    expect(text).not.toContain("owner");
  });

  test("a job whose result expired leaves the list, as it leaves its owner's poll", async () => {
    clock.increment(61_000);
    const page = await list();
    expect(page.jobs.map((job) => job.id)).toEqual([submitted[1]!.id, submitted[0]!.id]);
    expect(page.total_count).toBe(2);
  });

  test("an unknown status or a bad limit is a 400 naming the field", async () => {
    const status = await expectGatewayError(await gw.admin("/api/async-jobs?status=done"), 400, { param: "status" });
    expect(status.error.message).toContain("status");
    const limit = await expectGatewayError(await gw.admin("/api/async-jobs?limit=0"), 400, { param: "limit" });
    expect(limit.error.message).toContain("limit");
  });
});

describe("GET /api/async-jobs on another node", () => {
  test("a job whose result expired is left out even while the node holding it has not ended it yet", async () => {
    // The second node's clock stands 61 s ahead: past the job's 60 s ttl, which the first node's clock has not reached.
    const ahead = new TestClock(clock.now() + 61_000);
    const other = await startGateway({}, { databaseUrl: gw.databaseUrl, runtime: { actorClock: ahead } });
    try {
      const job = await submittedJob(gw, "embeddings", { model: "openai/text-embedding-3-small", input: "short-lived" }, { "x-gw-async-job-result-ttl": "60" });
      await finishedJob(gw, "embeddings", job.id);
      expect((await list()).jobs.map((listed) => listed.id)).toContain(job.id);
      const response = await other.admin("/api/async-jobs");
      expect(((await response.json()) as JobPage).jobs.map((listed) => listed.id)).not.toContain(job.id);
    } finally {
      await other.stop();
    }
  });
});
