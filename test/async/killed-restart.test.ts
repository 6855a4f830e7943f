import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { eventually } from "../support/eventually";
import { LISTENING, mainProcessWorkspace, printed, REPO_ROOT, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * A gateway killed (SIGKILL) with an async job under way and started again at once, on the same
 * embedded database: the restarted process takes its own node id back, and with it the job,
 * instead of waiting for the killed process's lease (30 s by default) to run out.
 */

const WITHIN_MS = 8_000;

let upstream: MockOpenAI;
const workspace = mainProcessWorkspace("gateway-killed-restart-");
const cleanups: Array<() => unknown> = [];

beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  upstream.stop();
  workspace.remove();
});

function setup() {
  const config = workspace.writeConfig({ providers: { openai: { keys: [{ id: "k", value: "sk-restart" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } });
  const env = { GATEWAY_NODE_ID: "", GATEWAY_DB_URL: `file:${workspace.path("gateway.db")}`, GATEWAY_ENCRYPTION_KEY: "killed-restart-key" };
  return { config, env };
}

/**
 * The gateway as the child of a parent that never reaps it (as a supervisor busy elsewhere, or an
 * init slow to reap): once killed, it stays a zombie, its pid still taken.
 */
async function startUnreaped(config: string, env: Record<string, string>) {
  const parent = Bun.spawn(["sh", "-c", `"$0" src/main.ts --config "$1" --port 0 --host 127.0.0.1 & echo "gateway pid $!"; exec sleep 600`, process.execPath, config], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "ignore",
  });
  cleanups.push(() => parent.kill("SIGKILL"));
  const until = printed(parent.stdout);
  const pid = Number((await until(/gateway pid (\d+)/))[1]);
  const url = (await until(LISTENING))[1]!;
  return { pid, url };
}

async function submit(url: string, text: string): Promise<string> {
  const response = await fetch(`${url}/v1/async/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }] }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

const status = async (url: string, id: string) => ((await (await fetch(`${url}/v1/async/chat/completions/${id}`)).json()) as { status: string }).status;

/** The first upstream call never answers: the job is in flight when its gateway is killed. */
function holdFirstCall(): Promise<void> {
  const arrived = Promise.withResolvers<void>();
  upstream.onRequest = async () => {
    upstream.onRequest = undefined;
    arrived.resolve();
    await new Promise(() => undefined);
  };
  return arrived.promise;
}

/** A gateway started by `start` on a database of its own, with a job whose upstream call is under way. */
async function jobInFlight<Node extends { url: string }>(start: (config: string, env: Record<string, string>) => Promise<Node>, text: string) {
  const { config, env } = setup();
  const arrived = holdFirstCall();
  const node = await start(config, env);
  const id = await submit(node.url, text);
  await arrived;
  return { config, env, node, id };
}

/** How long, from now, until the job is completed as `url` sees it. */
async function msUntilCompleted(url: string, id: string): Promise<number> {
  const since = performance.now();
  expect(await eventually(() => status(url, id), (state) => state === "completed", 40_000)).toBe("completed");
  return performance.now() - since;
}

async function restartAndFinish(config: string, env: Record<string, string>, id: string): Promise<number> {
  const restarted = await startGatewayProcess(config, env);
  cleanups.push(() => restarted.stop());
  return msUntilCompleted(restarted.url, id);
}

describe("a gateway killed with a job in flight and restarted at once takes the job back at once", () => {
  test("the killed process is still a zombie (not reaped yet) when the new one starts", async () => {
    const { config, env, node: killed, id } = await jobInFlight(startUnreaped, "in flight at the kill");
    process.kill(killed.pid, "SIGKILL");
    await eventually(async () => (await Bun.file(`/proc/${killed.pid}/stat`).text().catch(() => "")).split(" ")[2], (state) => state === "Z" || process.platform !== "linux");

    expect(await restartAndFinish(config, env, id)).toBeLessThan(WITHIN_MS);
  }, 60_000);

  test("the killed process's pid now belongs to another process", async () => {
    const { config, env, node: killed, id } = await jobInFlight(startGatewayProcess, "in flight at the kill, pid reused");
    killed.child.kill("SIGKILL");
    await killed.child.exited;
    // The system gives the pid to another process: here, the record of the killed node names a live one.
    const other = Bun.spawn(["sleep", "600"]);
    cleanups.push(() => other.kill("SIGKILL"));
    const database = createClient({ url: env.GATEWAY_DB_URL });
    const presence = await database.execute("SELECT key FROM gateway_meta WHERE key LIKE 'actor_node:%'");
    expect(presence.rows.length).toBe(1);
    await database.execute({ sql: "UPDATE gateway_meta SET value = json_set(value, '$.pid', ?) WHERE key LIKE 'actor_node:%'", args: [other.pid] });
    database.close();

    expect(await restartAndFinish(config, env, id)).toBeLessThan(WITHIN_MS);
  }, 60_000);

  test("the killed process was still alive when the new one started: the new one looks again and takes its jobs over", async () => {
    const { config, env, node: first, id } = await jobInFlight(startGatewayProcess, "in flight, holder killed after the restart");
    // Started beside a live holder of its id, it runs under an id of its own; then the holder dies.
    const second = await startGatewayProcess(config, env);
    cleanups.push(() => second.stop());
    first.child.kill("SIGKILL");
    await first.child.exited;
    // At once, not when the lease (30 s) runs out.
    expect(await msUntilCompleted(second.url, id)).toBeLessThan(WITHIN_MS);
  }, 60_000);
});
