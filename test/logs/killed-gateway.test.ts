import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import OpenAI from "openai";
import { SETUP_TOKEN_HEADER } from "../../src/access/setup-lock";
import { openEmbeddedFile } from "../../src/db/embedded-file";
import { QUARANTINE_FILE } from "../../src/logs/crash-journal";
import { driverRowOf, LOG_COLUMN_NAMES } from "../../src/logs/log-columns";
import { eventually } from "../support/eventually";
import { startGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { parsePrometheus, valueOf } from "../telemetry/prometheus-text";
import { minimalLogRow } from "./seed-logs";

const REPO_ROOT = resolve(import.meta.dir, "../..");
const SETUP_TOKEN = "killed-gateway-setup-token";
const workDir = mkdtempSync(join(tmpdir(), "gateway-killed-"));
const database = join(workDir, "gateway.db");
const journal = `${database}-log-journal`;

let upstream: MockOpenAI;
/** The gateway process started last; every one started is stopped after the file. */
let running: Subprocess | undefined;
const started: Subprocess[] = [];

beforeAll(() => {
  upstream = startMockOpenAI();
  writeFileSync(
    join(workDir, "config.json"),
    JSON.stringify({ setup_token: SETUP_TOKEN, telemetry: { metrics_allowlist: ["127.0.0.1"] }, providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } }),
  );
});
afterAll(async () => {
  for (const child of started) child.kill("SIGTERM");
  await Promise.all(started.map((child) => child.exited));
  upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** `bun src/main.ts` as its own process, on the test's database unless `env` says otherwise; resolves with its URL once it listens. */
async function startGatewayProcess(env: Record<string, string> = {}): Promise<string> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "--port", "0", "--config", join(workDir, "config.json")], {
    cwd: REPO_ROOT,
    env: { ...process.env, GATEWAY_DB_URL: `file:${database}`, GATEWAY_ENCRYPTION_KEY: "killed-gateway-key", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  running = child;
  started.push(child);
  const decoder = new TextDecoder();
  let output = "";
  for await (const chunk of child.stdout) {
    output += decoder.decode(chunk, { stream: true });
    const port = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output)?.[1];
    if (port) return `http://127.0.0.1:${port}`;
  }
  throw new Error(`the gateway exited before listening:\n${output}`);
}

// Each segment opens with a header line: the columns of its rows.
const journaledRows = async (dir = journal) => readdirSync(dir).reduce((count, name) => count + readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean).length - 1, 0);

const loggedTotal = async (url: string, search: string) =>
  ((await (await fetch(`${url}/api/logs?content_search=${search}`, { headers: { [SETUP_TOKEN_HEADER]: SETUP_TOKEN } })).json()) as { total: number }).total;

test("the logs of requests answered just before a SIGKILL are stored by the next start, each once", async () => {
  let url = await startGatewayProcess();
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
  const prompts = Array.from({ length: 12 }, (_, index) => `killed-${index}`);
  for (const prompt of prompts) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
  // Answered, and in the journal: the batch that stores them waits up to 200 ms more.
  await eventually(() => journaledRows(), (rows) => rows >= prompts.length);
  running!.kill("SIGKILL");
  await running!.exited;

  url = await startGatewayProcess();
  expect(await eventually(() => loggedTotal(url, "killed"), (total) => total >= prompts.length)).toBe(prompts.length);
  // Stored, so their journal goes once the next batch settles them.
  expect(await eventually(() => journaledRows(), (rows) => rows === 0)).toBe(0);
}, 30_000);

test("every request whose answer a client has read in full (whole or streamed) is logged after a SIGKILL sent the moment the answers arrived", async () => {
  let url = await startGatewayProcess();
  const chat = async (index: number) => {
    const stream = index % 2 === 1;
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", stream, messages: [{ role: "user", content: `answered-then-killed ${index}` }] }),
    });
    const body = await response.text();
    // Complete: a whole JSON reply, or a stream through its terminator.
    if (stream) expect(body).toContain("[DONE]");
    else expect(JSON.parse(body).choices).toHaveLength(1);
    return response.status;
  };
  const statuses = await Promise.all(Array.from({ length: 50 }, (_, index) => chat(index)));
  running!.kill("SIGKILL");
  await running!.exited;
  expect(statuses.every((status) => status === 200)).toBe(true);

  url = await startGatewayProcess();
  expect(await eventually(() => loggedTotal(url, "answered-then-killed"), (total) => total >= 50)).toBe(50);
}, 30_000);

test("rows an earlier process left under this very pid (a container's pid 1, restarted) are stored too, even from another version", async () => {
  const file = join(workDir, "reused-pid.db");
  const leftBehind = `${file}-log-journal`;
  mkdirSync(leftBehind);
  const row = driverRowOf(minimalLogRow("left-under-a-reused-pid"));
  // Written by another version: its columns in another order, one this version no longer has, one it did not have yet.
  const columns = [...LOG_COLUMN_NAMES.filter((name) => name !== "alias").reverse(), "a_column_since_dropped"];
  const values = [...row.filter((_, index) => LOG_COLUMN_NAMES[index] !== "alias").reverse(), "gone"];
  // Same pid as this process, another start time: the process that wrote it is gone.
  writeFileSync(join(leftBehind, `${process.pid}.1-0badc0de-00000000.jsonl`), `${JSON.stringify({ columns })}\n${JSON.stringify(values)}\n`);

  const gw = await startGateway({}, { databaseUrl: `file:${file}` });
  try {
    const logged = await gw.admin("/api/logs/left-under-a-reused-pid");
    expect(logged.status).toBe(200);
    expect(await logged.json()).toMatchObject({ id: "left-under-a-reused-pid", provider: "openai", model: "gpt-4o-mini", total_tokens: 5 });
    expect(await eventually(async () => readdirSync(leftBehind), (names) => names.length === 0)).toEqual([]);
  } finally {
    await gw.close();
  }
});

test("rows in the journal that SQLite refuses never keep the next start from listening: one is stored without its full-text entry, one is set aside in the quarantine file and counted", async () => {
  const file = join(workDir, "poisoned.db");
  const leftBehind = `${file}-log-journal`;
  mkdirSync(leftBehind);
  // Content nested past the 1,000 levels SQLite's JSON functions read: the full-text indexing refuses it.
  const deep = driverRowOf(minimalLogRow("poisoned-deep", { requestContent: `{"messages":[{"role":"user","content":"poisoned"}],"kept":${"[".repeat(1_100)}${"]".repeat(1_100)}}` }));
  // No provider: the table refuses the row itself, indexed or not.
  const unstorable = driverRowOf(minimalLogRow("poisoned-unstorable"));
  unstorable[LOG_COLUMN_NAMES.indexOf("provider")] = null;
  const healthy = driverRowOf(minimalLogRow("poisoned-healthy"));
  const lines = [{ columns: LOG_COLUMN_NAMES }, deep, unstorable, healthy].map((line) => JSON.stringify(line));
  writeFileSync(join(leftBehind, `${process.pid}.1-0badc0de-00000000.jsonl`), `${lines.join("\n")}\n`);

  const url = await startGatewayProcess({ GATEWAY_DB_URL: `file:${file}` });
  const statusOf = async (id: string) => (await fetch(`${url}/api/logs/${id}`, { headers: { [SETUP_TOKEN_HEADER]: SETUP_TOKEN } })).status;
  expect(await eventually(() => statusOf("poisoned-healthy"), (status) => status === 200)).toBe(200);
  expect(await statusOf("poisoned-deep")).toBe(200);
  expect(await statusOf("poisoned-unstorable")).toBe(404);
  const quarantined = readFileSync(join(leftBehind, QUARANTINE_FILE), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  expect(quarantined).toEqual([expect.objectContaining({ error: expect.stringContaining("NOT NULL"), header: { columns: LOG_COLUMN_NAMES }, row: unstorable })]);
  const metrics = parsePrometheus(await (await fetch(`${url}/metrics`)).text());
  expect(valueOf(metrics, "gateway_log_rows_quarantined_total")).toBe(1);
  // The segment is gone: only the quarantine file is left, and no later start takes it up again.
  expect(await eventually(async () => readdirSync(leftBehind), (names) => names.length === 1)).toEqual([QUARANTINE_FILE]);
}, 30_000);

test("a journal that cannot be written (its folder is a file) leaves the requests answered and logged", async () => {
  const file = join(workDir, "journal-blocked.db");
  writeFileSync(`${file}-log-journal`, "not a folder");
  const gw = await startGateway(
    { providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } } },
    { databaseUrl: `file:${file}` },
  );
  try {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "journal-blocked" }] });
    expect(reply.choices[0]?.message.content).toBeTruthy();
    const logged = async () => ((await (await gw.admin("/api/logs?content_search=journal-blocked")).json()) as { total: number }).total;
    expect(await eventually(logged, (total) => total === 1)).toBe(1);
  } finally {
    await gw.close();
  }
});

test("rows a gateway stopped while the database was locked could not store are stored by the next start", async () => {
  const file = join(workDir, "locked-at-stop.db");
  // Every statement waits out the busy timeout while the lock is held: a short one makes the same stop quicker.
  const url = await startGatewayProcess({ GATEWAY_DB_URL: `file:${file}`, GATEWAY_BUSY_TIMEOUT_MS: "250" });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
  // Another process holds the write lock through the whole stop: the gateway exits without storing the rows.
  const other = openEmbeddedFile(file);
  other.exec("BEGIN IMMEDIATE");
  try {
    for (const index of [1, 2, 3]) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `locked-at-stop-${index}` }] });
    running!.kill("SIGTERM");
    // The stop reports what it could not write and ends cleanly, instead of dying on the first locked step.
    expect(await running!.exited).toBe(0);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }

  // Another process, with the same encryption key: the journal of the one that stopped is its to store.
  const next = await startGatewayProcess({ GATEWAY_DB_URL: `file:${file}` });
  expect(await eventually(() => loggedTotal(next, "locked-at-stop"), (total) => total >= 3)).toBe(3);
}, 60_000);

test.skipIf(!LIBSQL_SERVER_BINARY)("on a libSQL server, GATEWAY_LOG_JOURNAL_DIR keeps the logs of a killed node for its next start", async () => {
  const server = await startLibsqlServer();
  try {
    const env = { GATEWAY_DB_URL: server.url, GATEWAY_LOG_JOURNAL_DIR: join(workDir, "node-journal") };
    const url = await startGatewayProcess(env);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (const index of [1, 2, 3, 4, 5]) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `node-killed-${index}` }] });
    await eventually(() => journaledRows(env.GATEWAY_LOG_JOURNAL_DIR), (rows) => rows >= 5);
    running!.kill("SIGKILL");
    await running!.exited;

    const next = await startGatewayProcess(env);
    expect(await eventually(() => loggedTotal(next, "node-killed"), (total) => total >= 5)).toBe(5);
  } finally {
    running?.kill("SIGTERM");
    await running?.exited;
    await server.stop();
  }
}, 60_000);

test.skipIf(!LIBSQL_SERVER_BINARY)("on an embedded replica, the journal beside the replica keeps the logs of a node killed while its primary was away", async () => {
  const primary = await startLibsqlServer({ jwt: true });
  const replica = join(workDir, "replica.db");
  const replicaJournal = `${replica}-log-journal`;
  const env = { GATEWAY_DB_URL: `file:${replica}`, GATEWAY_DB_SYNC_URL: primary.url, GATEWAY_DB_AUTH_TOKEN: primary.authToken!, GATEWAY_REGION: "eu" };
  try {
    let url = await startGatewayProcess(env);
    await primary.down();
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const prompts = Array.from({ length: 6 }, (_, index) => `replica-killed-${index}`);
    for (const prompt of prompts) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
    // Answered with the primary away: the rows wait in the queue and in the journal.
    await eventually(() => journaledRows(replicaJournal), (rows) => rows >= prompts.length);
    running!.kill("SIGKILL");
    await running!.exited;

    await primary.up();
    url = await startGatewayProcess(env);
    expect(await eventually(() => loggedTotal(url, "replica-killed"), (total) => total >= prompts.length, 10_000)).toBe(prompts.length);
    expect(await eventually(() => journaledRows(replicaJournal), (rows) => rows === 0)).toBe(0);
  } finally {
    running?.kill("SIGTERM");
    await running?.exited;
    await primary.stop();
  }
}, 40_000);
