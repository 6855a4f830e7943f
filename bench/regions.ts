/**
 * The regions bench (`npx bun bench/regions.ts`): does a node on an embedded replica pay the
 * distance to its primary on a request? A libSQL primary (JWT auth, as on Turso) sits behind a
 * relay of our own that adds 50 ms each way. Three gateways run side by side against the bench
 * mock upstream: on an embedded file (no primary at all), on an embedded replica of the far
 * primary, and on the far primary's URL. Each is sent the governed chat (a virtual key with a
 * budget, rate limits and a routing rule of its own) and a log query, one request at a time on a
 * keep-alive connection, in interleaved rounds; the p50 of each is reported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETUP_TOKEN_HEADER } from "../src/access/setup-lock";
import { openDatabase } from "../src/db/client";
import { startLibsqlServer } from "../test/support/libsql-server";
import { startDelayRelay } from "./delay-relay";
import { BENCH_SETUP_TOKEN, benchGatewayConfig } from "./gateway-config";
import { type BenchServer, startServer, stopAll } from "./processes";
import { SCENARIOS } from "./scenarios";
import { adminOf, startMockUpstream, startScriptEnv } from "./targets";

const ONE_WAY_DELAY_MS = 50;
const WARM_UP_REQUESTS = 300;
const ROUNDS = 5;
const REQUESTS_PER_ROUND = 200;
const LOG_QUERIES_PER_ROUND = 10;

const governed = SCENARIOS.find((scenario) => scenario.name === "chat governed")!;

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function timed(request: () => Promise<Response>): Promise<number> {
  const started = Bun.nanoseconds();
  const response = await request();
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`answered ${response.status}`);
  return (Bun.nanoseconds() - started) / 1e6;
}

interface Node {
  name: string;
  server: BenchServer;
  headers: Record<string, string>;
  chat: number[];
  logs: number[];
}

/** `sharedKey`: the headers of a key already made on the same database (by a node before this one). */
async function startNode(name: string, dir: string, mock: BenchServer, database: Record<string, string>, sharedKey?: Record<string, string>): Promise<Node> {
  const configPath = join(dir, `${name}.json`);
  await Bun.write(configPath, JSON.stringify(benchGatewayConfig(mock.url)));
  const server = await startServer(name, [process.execPath, "src/main.ts", "--port", "0", "--config", configPath], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, ...startScriptEnv(), GATEWAY_ENCRYPTION_KEY: "bench-encryption-key", GATEWAY_NODE_ID: name, ...database },
  });
  const headers = sharedKey ?? (await governed.setup!(adminOf(server)));
  return { name, server, headers, chat: [], logs: [] };
}

const chatOn = (node: Node) => () =>
  fetch(node.server.url + governed.path, { method: "POST", headers: { "content-type": "application/json", ...node.headers }, body: JSON.stringify(governed.body) });
const logQueryOn = (node: Node) => () => fetch(`${node.server.url}/api/logs?limit=10`, { headers: { [SETUP_TOKEN_HEADER]: BENCH_SETUP_TOKEN } });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "regions-bench-"));
  const primary = await startLibsqlServer({ jwt: true });
  const far = startDelayRelay({ hostname: "127.0.0.1", port: Number(new URL(primary.url).port) }, ONE_WAY_DELAY_MS);
  try {
    const mock = await startMockUpstream();
    const token = primary.authToken!;
    // Migrated directly: the schema's hundreds of statements 100 ms apart would outlast a node's start.
    (await openDatabase({ url: primary.url, authToken: token })).close();
    const file = await startNode("embedded file", dir, mock, { GATEWAY_DB_URL: `file:${join(dir, "file.db")}` });
    const replica = await startNode("embedded replica", dir, mock, { GATEWAY_DB_URL: `file:${join(dir, "replica.db")}`, GATEWAY_DB_SYNC_URL: far.url, GATEWAY_DB_AUTH_TOKEN: token });
    const remote = await startNode("remote URL", dir, mock, { GATEWAY_DB_URL: far.url, GATEWAY_DB_AUTH_TOKEN: token }, replica.headers);
    const nodes = [file, replica, remote];
    for (const node of nodes) for (let index = 0; index < WARM_UP_REQUESTS; index++) await timed(chatOn(node));
    for (let round = 0; round < ROUNDS; round++) {
      for (const node of nodes) {
        for (let index = 0; index < REQUESTS_PER_ROUND; index++) node.chat.push(await timed(chatOn(node)));
        for (let index = 0; index < LOG_QUERIES_PER_ROUND; index++) node.logs.push(await timed(logQueryOn(node)));
      }
    }
    const fileP50 = percentile(nodes[0]!.chat.toSorted((a, b) => a - b), 0.5);
    console.log(`primary ${ONE_WAY_DELAY_MS} ms away each way; ${ROUNDS} interleaved rounds of ${REQUESTS_PER_ROUND} governed chats and ${LOG_QUERIES_PER_ROUND} log queries per node\n`);
    console.log("node               chat p50 (ms)  chat p99 (ms)  vs file p50 (ms)  log query p50 (ms)");
    for (const node of nodes) {
      const chat = node.chat.toSorted((a, b) => a - b);
      const logs = node.logs.toSorted((a, b) => a - b);
      const p50 = percentile(chat, 0.5);
      console.log(
        `${node.name.padEnd(18)} ${p50.toFixed(2).padStart(13)}  ${percentile(chat, 0.99).toFixed(2).padStart(13)}  ${`${p50 - fileP50 >= 0 ? "+" : ""}${(p50 - fileP50).toFixed(2)}`.padStart(16)}  ${percentile(logs, 0.5).toFixed(2).padStart(18)}`,
      );
    }
  } finally {
    await stopAll();
    far.stop();
    await primary.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
