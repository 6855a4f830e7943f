/**
 * Request-log benchmark: seeds a fresh database through the real recorder and batched writer,
 * reports the ingestion rate, then times the dashboard's common /api/logs queries over HTTP.
 *
 *   npx bun bench/logs.ts [--rows 1000000] [--runs 15] [--ids v7|v4] [--writer thread|inline] [--db path/to/logs.db] [--beside-overhead]
 *
 * Targets: ingestion >= 20,000 rows/s while the overhead bench runs (`--beside-overhead` starts
 * bench/overhead.ts and seeds while it measures); every query < 100 ms at p50. Ingestion is also reported
 * per CPU-second of this process, which stays comparable when other work shares the machine.
 * Request ids are UUIDv7 by default (time-ordered, so the id index is appended to); `--ids v4`
 * shows the cost of random ids. `--db` keeps the seeded database and reuses it on the next run.
 */
import { Elysia } from "elysia";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/client";
import { errorHandler } from "../src/http/error-handler";
import { GatewayError } from "../src/http/errors";
import type { InferenceOutcome, RequestContext } from "../src/inference/hooks";
import { createRequestLogs } from "../src/logs";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: { "beside-overhead": { type: "boolean", default: false }, rows: { type: "string", default: "1000000" }, runs: { type: "string", default: "15" }, ids: { type: "string", default: "v7" }, writer: { type: "string", default: "thread" }, db: { type: "string" } },
});
const ROWS = Number(args.rows);
const RUNS = Number(args.runs);
const DAYS = 30;
const CHUNK = 10_000;

const MODELS = [
  ["openai", "gpt-4o"],
  ["openai", "gpt-4o-mini"],
  ["openai", "o3-mini"],
  ["anthropic", "claude-sonnet-4"],
  ["anthropic", "claude-haiku-3-5"],
  ["genai", "gemini-2.5-flash"],
  ["genai", "gemini-2.5-pro"],
  ["bedrock", "amazon.nova-pro"],
  ["cohere", "command-r-plus"],
  ["azure", "gpt-4o"],
] as const;
const SYLLABLES = ["ka", "lo", "mi", "ra", "tu", "ve", "zo", "ni", "sa", "qu", "el", "or", "an", "is", "ub"];
/** 3,375 made-up words; word k appears in about 1 in 3,375 prompts per position. */
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => a + b + c)));

let randomState = 42;
const random = () => {
  randomState = (randomState * 1_103_515_245 + 12_345) & 0x7fffffff;
  return randomState / 0x7fffffff;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const sentence = (length: number) => Array.from({ length }, () => pick(WORDS)).join(" ");

/** Request `index` of ROWS, spread evenly over the last DAYS days and arriving in time order, as real traffic does. */
function settledRequest(index: number, now: number): [RequestContext, InferenceOutcome] {
  const [provider, model] = pick(MODELS);
  const failed = random() < 0.05;
  const input = 20 + Math.floor(random() * 3000);
  const output = failed ? 0 : Math.floor(random() * 1200);
  const context: RequestContext = {
    id: args.ids === "v4" ? crypto.randomUUID() : Bun.randomUUIDv7(),
    receivedAt: new Date(now - Math.floor(((ROWS - index) / ROWS) * DAYS * 86_400_000)),
    startedAt: 0,
    operation: "chat",
    format: "openai",
    body: { model: `${provider}/${model}`, messages: [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: sentence(12) }], temperature: 0.2 },
    stream: random() < 0.5,
    headers: new Headers(),
    targets: [{ provider, model }],
    requestedModel: `${provider}/${model}`,
    // Customers are many and each rare (about 600 rows each over a million): the costly case for a filter.
    caller: { virtualKeyId: `vk-${Math.floor(random() * 50)}`, virtualKeyName: "bench", teamId: `team-${Math.floor(random() * 8)}`, customerId: random() < 0.3 ? `customer-${Math.floor(random() * 500)}` : undefined },
    metadata: { env: pick(["prod", "staging"]), ...(random() < 0.5 ? { feature: pick(["search", "chat", "summarise"]) } : {}) },
    sessionId: random() < 0.2 ? `session-${Math.floor(random() * 5000)}` : undefined,
    // One request in a hundred had a guardrail step in.
    guardrails: random() < 0.01 ? [{ guardrail: pick(["pii", "house-rules"]), check: "email", stage: "input", action: pick(["redact", "block"] as const), matches: 1 }] : undefined,
  };
  // Failures as the gateway logs them: a status code and an error type (one in five a rate limit).
  const status = failed ? (random() < 0.2 ? 429 : 502) : 200;
  const outcome: InferenceOutcome = {
    status,
    error: failed ? new GatewayError({ status, errorType: status === 429 ? "policy_rate_limited" : "provider_upstream_error", message: "upstream said no" }) : undefined,
    answered: failed ? undefined : { target: { provider, model }, keyId: `${provider}-key-1`, isFallback: false },
    attempts: [{ provider, model, key: `${provider}-key-1`, status, is_fallback: false }],
    summary: { usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }, finishReason: failed ? undefined : pick(["stop", "length", "tool_calls"] as const), toolCallNames: random() < 0.1 ? ["get_weather"] : [], content: failed ? undefined : sentence(20) },
    cost: random() < 0.05 ? undefined : (input * 2.5 + output * 10) / 1_000_000,
    latencyMs: 50 + random() * 4000,
  };
  return [context, outcome];
}

/**
 * Seeds ROWS rows the way the gateway produces them: requests settle (rows are built and queued)
 * while the writer thread stores earlier ones, at most one chunk ahead of it. Reports the rate
 * over the wall clock and per CPU-second of this process (all its threads), both including the
 * time this bench spends making up the requests.
 */
async function seed(logs: ReturnType<typeof createRequestLogs>, now: number) {
  let written = 0;
  let wake: (() => void) | undefined;
  logs.onRowsWritten((batch) => {
    written += batch.count;
    wake?.();
  });
  const writtenAtLeast = async (count: number) => {
    while (written < count) await new Promise<void>((resolve) => (wake = resolve));
  };
  // Timed throughout, so the writer's work while the next chunk's made-up requests are built counts.
  const [started, cpu] = [performance.now(), process.cpuUsage()];
  for (let index = 0; index < ROWS; index += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, ROWS - index) }, (_, offset) => settledRequest(index + offset, now));
    await writtenAtLeast(index - CHUNK);
    for (const [context, outcome] of chunk) logs.recorder.settle!(context, outcome);
    process.stdout.write(`\r  seeded ${(index + chunk.length).toLocaleString()} rows`);
  }
  await logs.flush();
  const used = process.cpuUsage(cpu);
  const [wallMs, cpuMs] = [performance.now() - started, (used.user + used.system) / 1000];
  process.stdout.write("\n");
  return { perWallSecond: ROWS / (wallMs / 1000), perCpuSecond: ROWS / (cpuMs / 1000) };
}

export async function p50(url: string): Promise<number> {
  for (let warmup = 0; warmup < 2; warmup++) await (await fetch(url)).arrayBuffer();
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    timings.push(performance.now() - started);
  }
  return timings.sort((a, b) => a - b)[Math.floor(timings.length / 2)]!;
}

const QUERIES: Array<[name: string, path: string]> = [
  ["last 24 h, first page (50 + total)", "/api/logs?period=24h&limit=50"],
  ["last 24 h, model + status filter", "/api/logs?period=24h&models=gpt-4o&status=error"],
  ["last 7 d, model + status filter", "/api/logs?period=7d&models=gpt-4o&status=error"],
  ["last 24 h, content search", `/api/logs?period=24h&content_search=${WORDS[100]}`],
  ["all time, content search", `/api/logs?content_search=${WORDS[200]}`],
  ["last 24 h, rankings with trend", "/api/logs/rankings?period=24h"],
  ["last 24 h, stats with comparison", "/api/logs/stats?period=24h"],
  ["last 24 h, histogram", "/api/logs/histogram?period=24h"],
  ["last 7 d, rankings with trend", "/api/logs/rankings?period=7d"],
  ["last 7 d, stats with comparison", "/api/logs/stats?period=7d"],
  ["last 30 d, histogram", "/api/logs/histogram?period=30d"],
  ["all time, rankings", "/api/logs/rankings"],
  ["all time, stats", "/api/logs/stats"],
];

/**
 * Starts the overhead bench and resolves once it is measuring (its servers under load); the
 * returned stop() fails if it ended before the caller was done, since then part of the seeding
 * ran beside nothing.
 */
async function overheadBenchRunning(): Promise<{ stop: () => Promise<void> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "overhead.ts")], { stdout: "ignore", stderr: "pipe" });
  let ended = false;
  void child.exited.then(() => (ended = true));
  const decoder = new TextDecoder();
  // Its progress ("measuring chat…") goes to stderr; its table, cut short here, to stdout.
  const reader = child.stderr.getReader();
  for (let output = ""; !output.includes("measuring"); ) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the overhead bench ended before measuring:\n${output}`);
    output += decoder.decode(value, { stream: true });
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
  return {
    async stop() {
      if (ended) throw new Error("the overhead bench ended before the seeding did: run fewer --rows");
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

export async function openSeeded() {
  const dir = args.db ? undefined : mkdtempSync(join(tmpdir(), "bench-logs-"));
  const file = args.db ?? join(dir!, "logs.db");
  const reuse = existsSync(file);
  const url = `file:${file}`;
  const database = await openDatabase(url);
  // As the gateway runs it, batches are written from the writer thread and queries run on the
  // reader thread; `--writer inline` does both on this thread.
  const logs = createRequestLogs(database.db, { queueCapacity: 3 * CHUNK, threads: args.writer === "inline" ? undefined : { url } });
  if (reuse) console.log(`reusing the seeded database ${file}`);
  else {
    console.log(`seeding ${ROWS.toLocaleString()} rows over ${DAYS} days (${args.ids} ids) through the recorder and batched writer`);
    const overhead = args["beside-overhead"] ? await overheadBenchRunning() : undefined;
    if (overhead) console.log("  while bench/overhead.ts runs beside (started it, seeding once it measures)");
    const rate = await seed(logs, Date.now());
    await overhead?.stop();
    const rounded = (value: number) => Math.round(value).toLocaleString();
    console.log(`ingestion: ${rounded(rate.perWallSecond)} rows/s wall, ${rounded(rate.perCpuSecond)} rows per CPU-second (target >= 20,000); dropped: ${logs.queueStatus().dropped}`);
  }
  return {
    logs,
    async close() {
      await logs.close();
      database.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const { logs, close } = await openSeeded();
  try {
    const server = new Elysia().use(errorHandler).use(logs.routes).listen({ port: 0, hostname: "127.0.0.1" });
    const base = `http://127.0.0.1:${server.server!.port}`;
    console.log(`\np50 of ${RUNS} runs per query over HTTP (target < 100 ms)`);
    for (const [name, path] of QUERIES) {
      const median = await p50(base + path);
      console.log(`  ${name.padEnd(38)} ${median.toFixed(1).padStart(8)} ms ${median < 100 ? "ok" : "SLOW"}`);
    }
    await server.stop(true);
  } finally {
    await close();
  }
}

if (import.meta.main) await main();
