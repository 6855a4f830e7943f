/**
 * Gateway overhead bench (`npm run bench`): the mock upstream directly, a bare Bun proxy (the
 * floor any proxy on this runtime pays) and the gateway, each its own process, measured by the
 * same load generator (its own process too) at a fixed rate and at saturation, for every
 * scenario in scenarios.ts. Prints one table and a PASS/FAIL line per target; exits 1 on a FAIL.
 * Traffic goes to 127.0.0.1 only; everything started is stopped on exit, error or Ctrl-C.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadPlan } from "./load-generator";
import { type Peer, type PeerName, startPeers } from "./peers";
import { ALLOCATION_ENV, type AllocationCounter, allocationCounter } from "./allocations";
import { type BenchServer, memoryOf, settled, stopAll, treeRssMBOf } from "./processes";
import { type ByTarget, governanceCost, guardrailCost, renderShapes, renderTable, type ScenarioResult, TARGETS, type TargetName, verdicts } from "./report";
import { type Measured, runLoad } from "./run-load";
import { SCENARIOS, type Scenario } from "./scenarios";
import { measureShapes, SLOW_SHAPE, STREAM_SHAPE } from "./shapes";
import { adminOf, JIT_QUIET_SHARE, LOAD, loadPlan, startBareProxy, startGateway, startMockUpstream, startScriptEnv, warmUp } from "./targets";

// `--scenario <name>` (repeatable) measures only those scenarios, for quick iterations; `--peers`
// adds nginx and Portkey's gateway; `--streams N` sets the open streams (0 skips them);
// `--scenario shapes` (or `--shapes-only`) measures the many-streams and slow-upstream shapes, which
// a `--scenario` list without it skips.
const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", multiple: true },
    peers: { type: "boolean", default: false },
    streams: { type: "string", default: "10000" },
    "shapes-only": { type: "boolean", default: false },
  },
});
const chosen = args["shapes-only"] ? [] : args.scenario ? SCENARIOS.filter((scenario) => args.scenario!.includes(scenario.name)) : SCENARIOS;
const streams = Number(args.streams);
const withShapes = args["shapes-only"] || !args.scenario || args.scenario.includes("shapes");
const SETTINGS = { ...LOAD, rateSeconds: 4, rateRounds: 3, saturationSeconds: 3, saturationRounds: 3, warmupSeconds: 1, warmupLimitSeconds: 15 };
const gatewayEnv = startScriptEnv();
/** Open file descriptors the bench and what it starts may hold: a proxy holds two sockets an open stream. */
const FILE_LIMIT = 200_000;
/** Descriptors a server holds besides its streams' sockets (database, journal, listeners, pipes). */
const FILES_BESIDES_STREAMS = 200;

type Servers = Record<(typeof TARGETS)[number], BenchServer>;

/**
 * Bun's fetch holds at most 256 requests to upstreams at once unless told more (the 257th
 * waits for a free slot), which would make the many-streams and slow-upstream shapes measure
 * that queue. Both Bun targets get what `npm start` sets, else the runtime's maximum: the bare
 * proxy is not started through `npm start`, so it must be told too.
 */
const FETCH_LIMIT_ENV: Record<string, string> = { BUN_CONFIG_MAX_HTTP_REQUESTS: gatewayEnv.BUN_CONFIG_MAX_HTTP_REQUESTS ?? "65336" };

/** The bare proxy's and the gateway's allocations, counted over the fixed-rate rounds (a fixed rate spreads the work done each second alike on every round). */
const allocations = new Map<BenchServer, AllocationCounter>();

async function startTargets(workDir: string): Promise<Servers> {
  const direct = await startMockUpstream();
  const [proxyCount, gatewayCount] = [allocationCounter(), allocationCounter()];
  const env = { ...FETCH_LIMIT_ENV, ...ALLOCATION_ENV };
  const [proxy, gateway] = await Promise.all([startBareProxy(direct, env, proxyCount.onOutput), startGateway(workDir, direct, env, undefined, "gateway", gatewayCount.onOutput)]);
  allocations.set(proxy, proxyCount).set(gateway, gatewayCount);
  return { direct, proxy, gateway };
}

/** A run, with the bytes its server allocated a request where they are counted. */
async function runCounted(plan: LoadPlan, server: BenchServer): Promise<Measured> {
  const counter = allocations.get(server);
  if (!counter) return runLoad(plan, server.pid);
  await counter.mark(server);
  const measured = await runLoad(plan, server.pid);
  await counter.mark(server);
  return { ...measured, allocatedBytesPerRequest: counter.allocatedBetweenMarks() / Math.max(1, measured.completed + measured.errors) };
}

const fileLimit = (which: "SOFT" | "HARD") => Number(Bun.spawnSync(["prlimit", `--pid=${process.pid}`, "--nofile", `--output=${which}`, "--noheadings"]).stdout.toString().trim());

/**
 * Raises this process's open-file limit, the servers it starts inherit it: to FILE_LIMIT where
 * allowed (root with CAP_SYS_RESOURCE), else the soft limit to the hard one. Returns the limit
 * now and what it allows.
 */
function raiseFileLimit(): { limit: number; text: string } {
  const raised = Bun.spawnSync(["prlimit", `--pid=${process.pid}`, `--nofile=${FILE_LIMIT}:${FILE_LIMIT}`], { stderr: "pipe" });
  if (raised.exitCode !== 0) Bun.spawnSync(["prlimit", `--pid=${process.pid}`, `--nofile=${fileLimit("HARD")}:${fileLimit("HARD")}`]);
  const limit = fileLimit("SOFT");
  const why = raised.exitCode === 0 ? "raised" : `the most this machine allows (raising the hard limit: ${raised.stderr.toString().trim().replace(/^prlimit: /, "")})`;
  return { limit, text: `Open files a process may hold: ${limit.toLocaleString("en-US")}, ${why}.` };
}

interface Target {
  name: TargetName;
  server: BenchServer;
  headers: Record<string, string> | undefined;
}

/** The targets a scenario runs on, each with its headers: the gateway's setup step's, a peer's own. */
async function targetsFor(scenario: Scenario, servers: Servers, peers: Partial<Record<PeerName, Peer>>): Promise<Target[]> {
  const extra = scenario.setup ? await scenario.setup(adminOf(servers.gateway)) : {};
  const targets: Target[] = [
    { name: "direct", server: servers.direct, headers: scenario.headers },
    { name: "proxy", server: servers.proxy, headers: scenario.headers },
    { name: "gateway", server: servers.gateway, headers: { ...scenario.headers, ...extra } },
  ];
  if (scenario.peers) {
    for (const [name, peer] of Object.entries(peers) as [PeerName, Peer][]) targets.push({ name, server: peer.server, headers: { ...scenario.headers, ...peer.headers } });
  }
  return targets;
}

/** One request per target before measuring: a target that answers wrongly would make the numbers meaningless. */
async function checkAnswers(scenario: Scenario, targets: Target[]): Promise<void> {
  for (const { server, headers } of targets) {
    const response = await fetch(server.url + scenario.path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(scenario.body),
    });
    const text = await response.text();
    if (response.status !== 200 || !text.includes(scenario.expect)) {
      throw new Error(`${server.name} answered ${scenario.name} with ${response.status}, expected 200 containing "${scenario.expect}":\n${text.slice(0, 500)}`);
    }
  }
}

const medianBy = (runs: Measured[], figure: (run: Measured) => number): Measured => runs.toSorted((a, b) => figure(a) - figure(b))[Math.floor(runs.length / 2)]!;

/**
 * Rounds alternate between the targets and each reports its median round: on a shared machine a
 * slow spell then hits every target alike instead of whichever ran during it.
 */
async function alternatingRounds(targets: Target[], count: number, run: (target: Target) => Promise<Measured>): Promise<Map<TargetName, Measured[]>> {
  const rounds = new Map<TargetName, Measured[]>(targets.map((target) => [target.name, []]));
  for (let round = 0; round < count; round++) {
    for (const target of targets) rounds.get(target.name)!.push(await run(target));
  }
  return rounds;
}

/** Warm-up load is saturation, or the scenario's own rate where it is measured at that rate alone (saturating with 150 KB bodies would leave minutes of logs to write). */
async function warmUpTarget(scenario: Scenario, { server, headers }: Target): Promise<void> {
  const mode = scenario.saturation === false ? "rate" : "saturate";
  const elapsed = await warmUp((seconds) => loadPlan(scenario, server, headers, mode, seconds, scenario.rate), server, SETTINGS.warmupSeconds, SETTINGS.warmupLimitSeconds);
  console.error(`  ${server.name}: warm after ${elapsed} s`);
}

/** The gateway database's size in bytes (pages in use, the write-ahead log's included). */
function databaseBytes(file: string): number {
  const database = new Database(file, { readonly: true });
  try {
    const pragma = (name: string) => Number(Object.values(database.query(`PRAGMA ${name}`).get() as Record<string, number>)[0]);
    return (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
  } finally {
    database.close();
  }
}

async function measureScenario(scenario: Scenario, servers: Servers, peers: Partial<Record<PeerName, Peer>>, databaseFile: string): Promise<ScenarioResult> {
  const targets = await targetsFor(scenario, servers, peers);
  await checkAnswers(scenario, targets);
  for (const target of targets) await warmUpTarget(scenario, target);
  const measure = (mode: LoadPlan["mode"], seconds: number) => async ({ server, headers }: Target) => {
    await settled(server.pid);
    const plan = loadPlan(scenario, server, headers, mode, seconds, scenario.rate);
    return mode === "rate" ? runCounted(plan, server) : runLoad(plan, server.pid);
  };
  await settled(servers.gateway.pid, 30_000);
  const bytesBefore = databaseBytes(databaseFile);
  const rateRounds = await alternatingRounds(targets, SETTINGS.rateRounds, measure("rate", SETTINGS.rateSeconds));
  await Bun.sleep(1000); // the log writer's last batch
  await settled(servers.gateway.pid);
  const logged = rateRounds.get("gateway")!.reduce((sum, run) => sum + run.completed + run.errors, 0);
  const logBytesPerRequest = (databaseBytes(databaseFile) - bytesBefore) / Math.max(1, logged);
  const saturationRounds = scenario.saturation === false ? undefined : await alternatingRounds(targets, SETTINGS.saturationRounds, measure("saturate", SETTINGS.saturationSeconds));
  const medians = (rounds: Map<TargetName, Measured[]>, figure: (run: Measured) => number) => Object.fromEntries([...rounds].map(([name, runs]) => [name, medianBy(runs, figure)])) as ByTarget;
  return {
    scenario,
    atRate: medians(rateRounds, (run) => run.latency.p50),
    saturated: saturationRounds && medians(saturationRounds, (run) => run.throughput),
    logBytesPerRequest,
  };
}

function describeSetup(): string {
  return [
    `Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), load average ${loadavg()[0]!.toFixed(2)} before the run; all processes unpinned, sharing the cores.`,
    "Targets: bench/mock-upstream.ts (direct; lean: no recording, a stream leaves in 2 writes), bench/bare-proxy.ts, and the",
    `gateway as \`bun src/main.ts --port 0 --config <tmp>/config.json\` with GATEWAY_DB_URL=file:<tmp>/gateway.db (the tree as it is)`,
    `and what \`npm start\` sets: ${Object.entries(gatewayEnv).map(([name, value]) => `${name}=${value}`).join(" ") || "nothing"}.`,
    `The bare proxy and the gateway both run with ${Object.entries(FETCH_LIMIT_ENV).map(([name, value]) => `${name}=${value}`).join(" ") || "the fetch limit npm start sets"} (Bun's fetch otherwise holds 256 upstream requests at once).`,
    "Load generator: bench/load-generator.ts, one Bun process per run, apart from every server; raw keep-alive HTTP/1.1",
    "sockets, times from Bun.nanoseconds() (shown in µs). Fixed rate: open loop, paced by bench/pacer.ts (its own process),",
    `${SETTINGS.rateConnections} connections, a request finding none idle counts from its tick; ${SETTINGS.rateRounds} rounds alternating between the targets, each`,
    `target's median round (by p50) shown. Saturation: ${SETTINGS.connections} connections back to back, ${SETTINGS.saturationRounds} rounds alternating the same way, each target's`,
    "median round (by throughput) shown.",
    `Each target first gets saturation (not counted) in ${SETTINGS.warmupSeconds} s slices until its JIT compiler threads use under ${JIT_QUIET_SHARE * 100}% of a core`,
    `(at most ${SETTINGS.warmupLimitSeconds} s): steady state, not the compilation of its code. Each run starts once the target is idle (≤3 s wait).`,
    '"server CPU per request": user+system time of the measured process and any under it (nginx\'s workers) over its requests, every thread.',
    '"allocated per request": what the main thread of the bare proxy and of the gateway allocated over a fixed-rate round, from JavaScriptCore\'s GC log',
    "between two full collections the bench asks for (bench/allocations.ts); both run with BUN_JSC_logGC=1 for it.",
    '"log bytes per request": what the gateway\'s database (pages in use, write-ahead log included) grew by over its fixed-rate rounds, over their requests.',
    `Many streams: N streams opened within ~N/10,000 s, each a mock model sending ${STREAM_SHAPE.tokens} tokens ${STREAM_SHAPE.intervalMs} ms apart; the bare proxy, then the gateway.`,
    `Slow upstream: ${SLOW_SHAPE.inFlight.toLocaleString("en-US")} connections each waiting on a reply the mock sends after ${SLOW_SHAPE.upstreamMs / 1000} s, ${SLOW_SHAPE.rounds} rounds of ${SLOW_SHAPE.seconds} s alternating`,
    "between the bare proxy and the gateway, the routes probed one request at a time (20 ms apart) meanwhile.",
  ].join("\n");
}

const workDir = mkdtempSync(join(tmpdir(), "gateway-bench-"));

async function cleanUp(): Promise<void> {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}

async function main(): Promise<number> {
  try {
    const files = raiseFileLimit();
    console.log(describeSetup());
    console.log(files.text);
    const possibleStreams = Math.floor((files.limit - FILES_BESIDES_STREAMS) / 2);
    if (streams > possibleStreams) console.log(`A proxy holds two sockets a stream: ${streams.toLocaleString("en-US")} streams do not fit in ${files.limit.toLocaleString("en-US")} descriptors, so ${possibleStreams.toLocaleString("en-US")} are measured.`);
    const servers = await startTargets(workDir);
    const peers = args.peers ? await startPeers(workDir, servers.direct) : {};
    const peerNames = Object.keys(peers) as PeerName[];
    if (peerNames.length > 0) console.log(`Peers: ${Object.values(peers).map((peer) => peer.label).join(", ")}; measured on ${chosen.filter((scenario) => scenario.peers).map((scenario) => scenario.name).join(" and ")}.`);
    const results: ScenarioResult[] = [];
    if (chosen.length === 0 && !withShapes) throw new Error(`no scenario named ${args.scenario!.join(", ")}; there are: ${SCENARIOS.map((scenario) => scenario.name).join(", ")}`);
    for (const scenario of chosen) {
      console.error(`measuring ${scenario.name}…`);
      results.push(await measureScenario(scenario, servers, peers, join(workDir, "gateway.db")));
    }
    const memory = memoryOf(servers.gateway.pid);
    const peerMemory = peerNames.map((name) => `${name} ${treeRssMBOf(peers[name]!.server.pid).toFixed(1)} MB`);
    const shapes = withShapes ? await measureShapes(servers.direct, servers.proxy, servers.gateway, Math.min(streams, possibleStreams)) : {};
    if (results.length > 0) console.log(`\n${renderTable(results, SETTINGS, [...TARGETS, ...peerNames])}`);
    const governance = governanceCost(results);
    if (governance) console.log(governance);
    const guardrails = guardrailCost(results);
    if (guardrails) console.log(guardrails);
    console.log(`gateway RSS after the scenarios: ${memory.rssMB.toFixed(1)} MB (peak ${memory.peakMB.toFixed(1)} MB)${peerMemory.length ? `; ${peerMemory.join(", ")}` : ""}`);
    const shapeTable = renderShapes(shapes);
    if (shapeTable) console.log(`\n${shapeTable}`);
    console.log("");
    const checks = verdicts(results, shapes, memory.rssMB);
    for (const check of checks) console.log(`${check.pass === undefined ? "INFO" : check.pass ? "PASS" : "FAIL"}  ${check.text}`);
    return checks.every((check) => check.pass !== false) ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true;
    console.error(`${signal}: stopping everything the bench started`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (interrupted) return;
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
