import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import OpenAI from "openai";
import { SETUP_TOKEN_HEADER } from "../../src/access/setup-lock";
import { eventually } from "../support/eventually";
import { type LogSinkReceiver, startLogSinkReceiver } from "../support/log-sink-receiver";
import { type GatewayProcess, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const SETUP_TOKEN = "killed-sink-setup-token";
const workDir = mkdtempSync(join(tmpdir(), "gateway-killed-sink-"));

let upstream: MockOpenAI;
let receiver: LogSinkReceiver;
const started: Subprocess[] = [];

beforeAll(() => {
  upstream = startMockOpenAI();
  receiver = startLogSinkReceiver();
  const sink = { type: "http", name: "collector", url: `${receiver.url}/collector`, secret: receiver.secret, batch_size: 2, poll_interval_ms: 50, retry_backoff_initial_ms: 50, retry_backoff_max_ms: 200 };
  writeFileSync(
    join(workDir, "config.json"),
    JSON.stringify({ setup_token: SETUP_TOKEN, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } }, log_sinks: [sink] }),
  );
});
afterAll(async () => {
  for (const child of started) child.kill("SIGTERM");
  await Promise.all(started.map((child) => child.exited));
  receiver.stop();
  upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** `bun src/main.ts` on the test's database, always as the same node (its restart takes its sinks back at once). */
async function startNode(): Promise<GatewayProcess> {
  const node = await startGatewayProcess(join(workDir, "config.json"), { GATEWAY_DB_URL: `file:${join(workDir, "gateway.db")}`, GATEWAY_ENCRYPTION_KEY: "killed-sink-key", GATEWAY_NODE_ID: "sink-node" });
  started.push(node.child);
  return node;
}

const chat = (url: string, content: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 }).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }] });
const storedIds = async (url: string) => ((await (await fetch(`${url}/api/logs?limit=1000`, { headers: { [SETUP_TOKEN_HEADER]: SETUP_TOKEN } })).json()) as { logs: Array<{ id: string }> }).logs.map((log) => log.id);

test("a gateway killed (SIGKILL) while its sink is down and a batch is unanswered loses no row: the restart sends what the sink missed, repeating only the unanswered batch", async () => {
  const first = await startNode();
  for (let index = 0; index < 3; index++) await chat(first.url, `before ${index}`);
  await eventually(async () => receiver.rowsOn("/collector").length, (count) => count === 3, 10_000);

  // The sink goes down: rows wait in the log, the gateway backs off.
  receiver.down = true;
  for (let index = 0; index < 4; index++) await chat(first.url, `while down ${index}`);
  await eventually(async () => receiver.refused, (refused) => refused >= 2, 10_000);
  // Back, but the answer to the next batch never comes before the kill: the receiver has it, the gateway does not know.
  const held = Promise.withResolvers<void>();
  receiver.hold = held.promise;
  const taken = receiver.nextBatch();
  receiver.down = false;
  const unanswered = await taken;
  first.child.kill("SIGKILL");
  await first.child.exited;
  receiver.hold = undefined;
  held.resolve();

  const second = await startNode();
  for (let index = 0; index < 2; index++) await chat(second.url, `after ${index}`);
  const stored = await eventually(() => storedIds(second.url), (ids) => ids.length === 9, 10_000);
  const received = await eventually(async () => receiver.rowsOn("/collector").map((row) => row.id), (ids) => new Set(ids).size >= 9, 15_000);
  expect(receiver.rejected).toEqual([]);
  expect(new Set(received)).toEqual(new Set(stored));
  // At least once: the batch the killed process never heard back about came again, and nothing else did.
  const repeated = received.filter((id, index) => received.indexOf(id) !== index);
  expect(repeated).toEqual(unanswered.rows.map((row) => row.id));
}, 60_000);
