import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { eventually } from "../support/eventually";
import { LISTENING, mainProcessWorkspace, printed } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const SETUP_TOKEN = "workers-setup";
const workspace = mainProcessWorkspace("gateway-workers-");
let upstream: MockOpenAI;

beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => {
  upstream.stop();
  workspace.remove();
});

/** `bun src/main.ts --workers <count>` with `openai` on the mock, once every worker listens. */
async function startWorkers(count: number) {
  const database = workspace.path("gateway.sqlite");
  const config = workspace.writeConfig({ setup_token: SETUP_TOKEN, providers: { openai: { keys: [{ id: "k", value: "sk-workers", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } });
  const child = workspace.start(["--config", config, "--port", "0", "--workers", String(count)], { GATEWAY_DB_URL: `file:${database}`, GATEWAY_NODE_ID: "" });
  const until = printed(child.stdout);
  const [, url] = await until(LISTENING);
  return { child, until, url: url!, database };
}
type Deployment = Awaited<ReturnType<typeof startWorkers>>;

/** Each request on a connection of its own, so the kernel spreads them over the workers as it would a load balancer's. */
const fresh = (url: string, init: RequestInit = {}) => fetch(url, { ...init, keepalive: false });

function chat(url: string, virtualKey?: string, body: Record<string, unknown> = {}) {
  return fresh(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(virtualKey && { "x-gw-vk": virtualKey }) },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "one two three" }], ...body }),
  });
}

/** The node ids that answered `tries` requests to /health, one connection each. */
async function nodesAnswering(url: string, tries = 20): Promise<Set<string>> {
  const nodes = await Promise.all(Array.from({ length: tries }, async () => ((await (await fresh(`${url}/health`)).json()) as { node: string }).node));
  return new Set(nodes);
}

/** A virtual key made through the API, once every one of `tries` requests, on as many connections, finds it. */
async function virtualKey(url: string, json: Record<string, unknown>): Promise<string> {
  const headers = { "content-type": "application/json", "x-gateway-setup-token": SETUP_TOKEN };
  const response = await fresh(`${url}/api/governance/virtual-keys`, { method: "POST", headers, body: JSON.stringify(json) });
  expect(response.status).toBe(201);
  const { virtual_key } = (await response.json()) as { virtual_key: { id: string; value: string } };
  // The other worker reads the new key from the database within a second, as another node would.
  const known = await eventually(
    async () => {
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await fresh(`${url}/api/governance/virtual-keys/${virtual_key.id}`, { headers })).status));
      return statuses.every((status) => status === 200);
    },
    (all) => all,
    5_000,
  );
  expect(known).toBe(true);
  return virtual_key.value;
}

async function logRows(database: string): Promise<Array<Record<string, unknown>>> {
  const client = createClient({ url: `file:${database}` });
  try {
    return (await client.execute("SELECT status, stream, cost FROM request_logs ORDER BY timestamp")).rows as unknown as Array<Record<string, unknown>>;
  } finally {
    client.close();
  }
}

async function statusesOf(responses: Array<Promise<Response>>): Promise<number[]> {
  return Promise.all(responses.map(async (pending) => {
    const response = await pending;
    await response.arrayBuffer();
    return response.status;
  }));
}

describe("two workers on one port", () => {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await startWorkers(2);
  }, 30_000);
  afterAll(async () => {
    deployment.child.kill("SIGKILL");
    await deployment.child.exited;
  });

  test("both serve the port, each under a node id of its own", async () => {
    const nodes = await eventually(() => nodesAnswering(deployment.url), (seen) => seen.size === 2);
    expect(nodes.size).toBe(2);
  });

  test("a key limited to 10 requests gets exactly 10 of 30 concurrent requests through, the rest 429", async () => {
    const key = await virtualKey(deployment.url, { name: "ten-over-two-workers", rate_limit: { request_max_limit: 10, request_reset_duration: "1h" } });
    const statuses = await statusesOf(Array.from({ length: 30 }, () => chat(deployment.url, key)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    // Spent for every worker: later requests are refused wherever they land.
    expect(await statusesOf(Array.from({ length: 10 }, () => chat(deployment.url, key)))).toEqual(Array(10).fill(429));
  });

  test("a budget spent by requests on both workers stops where one process would stop it", async () => {
    // The price of one call, from its log row.
    const priced = await statusesOf([chat(deployment.url)]);
    expect(priced).toEqual([200]);
    // The earlier tests' refused requests are logged too, without a cost.
    const rows = await eventually(() => logRows(deployment.database), (logged) => logged.some((row) => Number(row.cost) > 0));
    const costPerCall = Number(rows.find((row) => Number(row.cost) > 0)?.cost);
    expect(costPerCall).toBeGreaterThan(0);
    // Room for 4.5 calls: the fifth starts with half a call left, the sixth finds none.
    const key = await virtualKey(deployment.url, { name: "five-calls-of-money", budgets: [{ max_limit: costPerCall * 4.5, reset_duration: "1h" }] });
    const statuses: number[] = [];
    // Capped at the 4 tokens the mock answers with: each call reserves what it will cost.
    for (let call = 0; call < 12; call++) statuses.push(...(await statusesOf([chat(deployment.url, key, { max_tokens: 4 })])));
    const admitted = statuses.filter((status) => status === 200).length;
    // A budget is charged once the reply is in: a call that starts before the last charge is counted may pass it by one, as in one process.
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(6);
    expect(statuses.slice(admitted)).toEqual(Array(12 - admitted).fill(402));
  });

  test("a budget hit by a burst on both workers at once lets through what it holds, each call reserving its estimated cost in the first process", async () => {
    // gpt-4o-mini's list price for a call capped at 4 output tokens: "one two three" estimated as 5 input tokens (a token to three characters).
    const estimate = 5 * 1.5e-7 + 4 * 6e-7;
    // What a call really costs: the mock counts 3 input tokens.
    const charged = 3 * 1.5e-7 + 4 * 6e-7;
    const budget = 9.5 * charged;
    const key = await virtualKey(deployment.url, { name: "burst-over-two-workers", budgets: [{ max_limit: budget, reset_duration: "1h" }] });
    const statuses = await statusesOf(Array.from({ length: 60 }, () => chat(deployment.url, key, { max_tokens: 4 })));
    const served = statuses.filter((status) => status === 200).length;
    // Admitted while the reservations leave anything, as one process would: every call of the burst
    // reserves the estimate; a call that settles first gives back what it did not spend, which one
    // more may take, but never past the last call that starts within the budget.
    expect(served).toBeGreaterThanOrEqual(Math.ceil(budget / estimate));
    expect(served).toBeLessThanOrEqual(Math.ceil(budget / charged));
    expect(statuses.filter((status) => status === 402)).toHaveLength(60 - served);
  });

  test("async jobs submitted on both workers each run once, and any worker answers their polls", async () => {
    const contents = Array.from({ length: 12 }, (_, index) => `job ${index}`);
    const jobs = await Promise.all(
      contents.map(async (content) => {
        const response = await fresh(`${deployment.url}/v1/async/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] }),
        });
        expect(response.status).toBe(202);
        return ((await response.json()) as { id: string }).id;
      }),
    );
    const finished = await Promise.all(
      jobs.map((id) =>
        eventually(
          async () => (await (await fresh(`${deployment.url}/v1/async/chat/completions/${id}`)).json()) as { status: string; result?: { choices: Array<{ message: { content: string } }> } },
          (job) => job.status === "completed" || job.status === "failed",
          10_000,
        ),
      ),
    );
    expect(finished.map((job) => job.result?.choices[0]?.message.content)).toEqual(contents.map((content) => `echo: ${content}`));
    const upstreamCalls = contents.map((content) => upstream.requests.filter((request) => JSON.stringify(request.body).includes(`"${content}"`)).length);
    expect(upstreamCalls).toEqual(Array(contents.length).fill(1));
  });

  test("a worker killed outright is started again and serves", async () => {
    const [, pid] = await deployment.until(/gateway worker 1 started \(pid (\d+)\)/);
    process.kill(Number(pid), "SIGKILL");
    const [, restarted] = await deployment.until(new RegExp(`gateway worker 1 started \\(pid (?!${pid}\\))(\\d+)\\)`));
    expect(Number(restarted)).not.toBe(Number(pid));
    const nodes = await eventually(() => nodesAnswering(deployment.url), (seen) => seen.size === 2);
    expect(nodes.size).toBe(2);
    expect(await statusesOf(Array.from({ length: 10 }, () => chat(deployment.url)))).toEqual(Array(10).fill(200));
  });
});

describe("request logs of every worker land in the one database", () => {
  test("N requests spread over three workers leave N log rows, once SIGTERM has stopped them all", async () => {
    const { child, url, database } = await startWorkers(3);
    const requests = 150;
    const statuses: number[] = [];
    for (let wave = 0; wave < requests / 30; wave++) statuses.push(...(await statusesOf(Array.from({ length: 30 }, () => chat(url)))));
    expect(statuses).toEqual(Array(requests).fill(200));
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    const rows = await logRows(database);
    expect(rows).toHaveLength(requests);
    expect(rows.every((row) => row.status === "success")).toBe(true);
  }, 30_000);
});

describe("a worker killed outright the moment its answers arrived", () => {
  test("loses no log row of a request it answered, whole or streamed: the next start of it stores them", async () => {
    const { child, until, url, database } = await startWorkers(2);
    const [, pid] = await until(/gateway worker 1 started \(pid (\d+)\)/);
    const requests = 40;
    const replies = Array.from({ length: requests }, (_, index) => chat(url, undefined, { stream: index % 2 === 1 }));
    expect(await statusesOf(replies)).toEqual(Array(requests).fill(200));
    process.kill(Number(pid), "SIGKILL");
    await until(new RegExp(`gateway worker 1 started \\(pid (?!${pid}\\))(\\d+)\\)`));
    // The worker started again stores what its predecessor journaled, while it serves.
    await eventually(() => logRows(database), (rows) => rows.length >= requests, 10_000);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(await logRows(database)).toHaveLength(requests);
  }, 30_000);
});

describe("SIGTERM drains every worker", () => {
  test("streams under way on the workers finish and are logged; the first process exits 0 after them", async () => {
    const { child, until, url, database } = await startWorkers(2);
    const held = Array.from({ length: 8 }, () => upstream.holdNextStream());
    const replies = held.map(() => chat(url, undefined, { stream: true }).then((response) => response.text()));
    for (const reply of replies) reply.catch(() => {});
    await Promise.all(held.map((stream) => stream.arrived));
    child.kill("SIGTERM");
    await until(/gateway stopping/);
    // Soon no new connection is taken, by any worker (each stops listening as it takes the signal in).
    const refused = await eventually(
      () => fresh(`${url}/health`).then(() => false, () => true),
      (done) => done,
    );
    expect(refused).toBe(true);
    for (const stream of held) stream.release(100);
    for (const text of await Promise.all(replies)) {
      expect([...text.matchAll(/"content":"([^"]*)"/g)].map(([, content]) => content).join("")).toBe("echo: one two three");
      expect(text).toEndWith("data: [DONE]\n\n");
    }
    expect(await child.exited).toBe(0);
    const rows = await logRows(database);
    expect(rows.map(({ status, stream }) => ({ status, stream }))).toEqual(Array(8).fill({ status: "success", stream: 1 }));
  }, 30_000);
});

describe("a worker whose first process is killed outright", () => {
  test("drains and exits instead of serving on without the counters", async () => {
    const { child, until } = await startWorkers(2);
    const [, pid] = await until(/gateway worker 1 started \(pid (\d+)\)/);
    child.kill("SIGKILL");
    await child.exited;
    const running = () => {
      try {
        process.kill(Number(pid), 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(await eventually(async () => running(), (alive) => !alive, 10_000)).toBe(false);
  }, 30_000);
});

test("a generated setup token is printed once, by the first process, not again by each worker", async () => {
  const child = workspace.start(["--config", workspace.writeConfig({}), "--port", "0", "--workers", "2"], { GATEWAY_DB_URL: `file:${workspace.path("generated-token.sqlite")}`, GATEWAY_NODE_ID: "" });
  const [, url] = await printed(child.stdout)(LISTENING);
  await eventually(() => nodesAnswering(url!), (seen) => seen.size === 2);
  child.kill("SIGTERM");
  const [stderr] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(stderr.match(/setup token: \S+/g)).toHaveLength(1);
}, 30_000);

describe("a bad number of workers stops the start with exit code 2, naming the setting", () => {
  for (const [what, args, config, named] of [
    ["--workers 0", ["--workers", "0"], {}, /--workers/],
    ["--workers two", ["--workers", "two"], {}, /--workers/],
    ["server.workers 0", [], { server: { workers: 0 } }, /server\.workers/],
  ] as const) {
    // Each a process that stops at once: they run side by side.
    test.concurrent(what, async () => {
      const child = workspace.start(["--config", workspace.writeConfig(config), "--port", "0", ...args]);
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
      expect({ code, stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(named) });
    });
  }
});
