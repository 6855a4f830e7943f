/**
 * Webhook delivery benchmark, on the real delivery engine (endpoint store, durable delivery
 * actors, libSQL snapshots and history) against a receiver in its own process:
 *
 *   1. deliveries per second to one endpoint at the default concurrency (10 in flight);
 *   2. memory held by 10,000 deliveries waiting to retry, and the time to resume them after a restart.
 *
 * With --recording-rounds N it measures only (1), with the actors' transition history recorded
 * and not, in N interleaved rounds each on a fresh database, and prints both side by side.
 *
 *   npx bun bench/webhooks.ts [--deliveries 5000] [--pending 10000] [--recording-rounds 3]
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { count, eq } from "drizzle-orm";
import { systemClock } from "../actors/runtime/clock";
import { ActorSnapshotStore, defaultLease } from "../actors/runtime/snapshot-store";
import { createSecretBox } from "../src/crypto/secret-box";
import { type Database, openDatabase } from "../src/db/client";
import { webhookDeliveries } from "../src/db/schema";
import { createWebhooks, type FinishedJob, type Webhooks } from "../src/webhooks";
import { systemResolver } from "../src/webhooks/host-resolver";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: { deliveries: { type: "string", default: "5000" }, pending: { type: "string", default: "10000" }, "recording-rounds": { type: "string" } },
});
const DELIVERIES = Number(args.deliveries);
const PENDING = Number(args.pending);
const RECORDING_ROUNDS = args["recording-rounds"] ? Number(args["recording-rounds"]) : undefined;

/** Answers 200 on /ok and 500 on /fail; prints its port. */
const RECEIVER = `
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", async fetch(request) {
  await request.arrayBuffer();
  return new Response("", { status: new URL(request.url).pathname === "/ok" ? 200 : 500 });
} });
console.log(server.port);`;

async function startReceiver() {
  const child = Bun.spawn([process.execPath, "-e", RECEIVER], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  return { url: `http://127.0.0.1:${new TextDecoder().decode(value).trim()}`, stop: () => child.kill() };
}

/** Many jobs finishing at once: enqueue `total` notifications, `parallel` at a time. */
async function notifyMany(webhooks: Webhooks, total: number, prefix: string, webhook: string, parallel = 100) {
  for (let start = 0; start < total; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, total - start) }, (_, offset) => webhooks.jobFinished(job(`${prefix}-${start + offset}`, webhook)));
    await Promise.all(batch);
  }
}

const job = (id: string, webhook: string): FinishedJob => ({
  id,
  requestType: "chat.completion",
  status: "completed",
  statusCode: 200,
  resultUrl: `http://gateway.local/v1/async/chat/completions/${id}`,
  resultExpiresAt: new Date(Date.now() + 3_600_000),
  completedAt: new Date(),
  response: { id, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "benchmark answer" }, finish_reason: "stop" }] },
  webhook,
});

async function open(db: Database, recording = true) {
  const snapshots = new ActorSnapshotStore(db, defaultLease(), { recordTransitions: () => recording });
  const webhooks = await createWebhooks({ db, secrets: createSecretBox("bench-key"), snapshots, clock: systemClock, resolveHost: systemResolver, env: {} });
  return { webhooks, snapshots };
}

async function until(condition: () => Promise<boolean> | boolean) {
  while (!(await condition())) await Bun.sleep(50);
}

const countWithStatus = async (db: Database, status: "delivered" | "waiting_retry") =>
  (await db.select({ total: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, status)))[0]!.total;

function memory() {
  Bun.gc(true);
  return { heapMb: heapStats().heapSize / 2 ** 20, rssMb: process.memoryUsage().rss / 2 ** 20 };
}

const rate = (per: number) => Math.round(per).toLocaleString();

/** Deliveries per second, from the first enqueue to the last delivered row. */
async function throughput(webhooks: Webhooks, db: Database, receiverUrl: string, quiet = false): Promise<number> {
  await webhooks.endpoints.create({ name: "fast", url: `${receiverUrl}/ok`, allow_private_network: true });
  const started = performance.now();
  await notifyMany(webhooks, DELIVERIES, "fast", "fast");
  const enqueuedMs = performance.now() - started;
  await until(async () => webhooks.runner.pending === 0 && (await countWithStatus(db, "delivered")) === DELIVERIES);
  const seconds = (performance.now() - started) / 1000;
  if (!quiet) {
    console.log(`deliveries: ${DELIVERIES.toLocaleString()} to one endpoint, max_concurrent_deliveries 10 (default)`);
    console.log(`  enqueued at ${rate(DELIVERIES / (enqueuedMs / 1000))}/s; all delivered in ${seconds.toFixed(2)} s: ${rate(DELIVERIES / seconds)} deliveries/s`);
  }
  return DELIVERIES / seconds;
}

/** One throughput round on a fresh database, transitions recorded or not. */
async function recordingRound(recording: boolean, receiverUrl: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "bench-webhooks-"));
  try {
    const database = await openDatabase(`file:${join(dir, "bench.db")}`);
    const { webhooks } = await open(database.db, recording);
    const perSecond = await throughput(webhooks, database.db, receiverUrl, true);
    await webhooks.stop();
    database.close();
    return perSecond;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function compareRecording(rounds: number) {
  const receiver = await startReceiver();
  const results = { off: [] as number[], on: [] as number[] };
  try {
    for (let round = 0; round < rounds; round++) {
      results.off.push(await recordingRound(false, receiver.url));
      results.on.push(await recordingRound(true, receiver.url));
    }
  } finally {
    receiver.stop();
  }
  const [off, on] = [median(results.off), median(results.on)];
  console.log(`deliveries: ${DELIVERIES.toLocaleString()} to one endpoint per round, ${rounds} interleaved rounds, median deliveries/s`);
  console.log(`  recording off: ${rate(off)}/s (rounds: ${results.off.map(rate).join(", ")})`);
  console.log(`  recording on:  ${rate(on)}/s (rounds: ${results.on.map(rate).join(", ")})`);
  console.log(`  cost of recording: ${(((off - on) / off) * 100).toFixed(1)} % of throughput`);
}

async function pendingRetries(webhooks: Webhooks, db: Database, receiverUrl: string, before: ReturnType<typeof memory>) {
  await webhooks.endpoints.create({ name: "down", url: `${receiverUrl}/fail`, allow_private_network: true, max_concurrent_deliveries: 50 });
  await notifyMany(webhooks, PENDING, "down", "down");
  await until(async () => (await countWithStatus(db, "waiting_retry")) === PENDING);
  const after = memory();
  console.log(`pending retries: ${PENDING.toLocaleString()} deliveries waiting (first retry in 30 s)`);
  const eachKb = ((after.heapMb - before.heapMb) * 1024) / PENDING;
  console.log(`  heap ${before.heapMb.toFixed(1)} -> ${after.heapMb.toFixed(1)} MB (${eachKb.toFixed(1)} KB each); rss ${after.rssMb.toFixed(0)} MB`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "bench-webhooks-"));
  const receiver = await startReceiver();
  try {
    const database = await openDatabase(`file:${join(dir, "bench.db")}`);
    const { webhooks } = await open(database.db);
    await throughput(webhooks, database.db, receiver.url);
    await pendingRetries(webhooks, database.db, receiver.url, memory());
    await webhooks.stop();
    console.log(`  after stopping them: heap ${memory().heapMb.toFixed(1)} MB`);

    const { webhooks: restarted, snapshots } = await open(database.db);
    const started = performance.now();
    const resumed = await restarted.resume();
    await snapshots.idle();
    const restoredMemory = memory();
    console.log(`restart: ${resumed.toLocaleString()} deliveries resumed from their snapshots in ${((performance.now() - started) / 1000).toFixed(2)} s; heap ${restoredMemory.heapMb.toFixed(1)} MB`);
    await restarted.stop();
    database.close();
  } finally {
    receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (RECORDING_ROUNDS) await compareRecording(RECORDING_ROUNDS);
else await main();
