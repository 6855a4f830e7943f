/**
 * Gateway overhead bench (`npm run bench`): the mock upstream directly, a bare Bun proxy (the
 * floor any proxy on this runtime pays) and the gateway, each its own process, measured by the
 * same load generator (its own process too) at a fixed rate and at saturation, for every
 * scenario in scenarios.ts. Prints one table and a PASS/FAIL line per target; exits 1 on a FAIL.
 * Traffic goes to 127.0.0.1 only; everything started is stopped on exit, error or Ctrl-C.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadPlan } from "./load-generator";
import { type BenchServer, memoryOf, settled, stopAll } from "./processes";
import { type ByTarget, governanceCost, renderTable, type ScenarioResult, TARGETS, type TargetName, verdicts } from "./report";
import { type Measured, runLoad } from "./run-load";
import { SCENARIOS, type Scenario } from "./scenarios";
import { adminOf, JIT_QUIET_SHARE, LOAD, loadPlan, startBareProxy, startGateway, startMockUpstream, startScriptEnv, warmUp } from "./targets";

// `--scenario <name>` (repeatable) measures only those scenarios, for quick iterations.
const { values: args } = parseArgs({ args: Bun.argv.slice(2), options: { scenario: { type: "string", multiple: true } } });
const chosen = args.scenario ? SCENARIOS.filter((scenario) => args.scenario!.includes(scenario.name)) : SCENARIOS;
const SETTINGS = { ...LOAD, rateSeconds: 4, rateRounds: 3, saturationSeconds: 3, saturationRounds: 3, warmupSeconds: 1, warmupLimitSeconds: 15 };
const gatewayEnv = startScriptEnv();

async function startTargets(workDir: string): Promise<Record<TargetName, BenchServer>> {
  const direct = await startMockUpstream();
  const [proxy, gateway] = await Promise.all([startBareProxy(direct), startGateway(workDir, direct)]);
  return { direct, proxy, gateway };
}

type HeadersByTarget = Record<TargetName, Record<string, string> | undefined>;

/** The scenario's headers for every target, plus whatever its setup step made for the gateway alone. */
async function headersFor(scenario: Scenario, gateway: BenchServer): Promise<HeadersByTarget> {
  const extra = scenario.setup ? await scenario.setup(adminOf(gateway)) : {};
  return { direct: scenario.headers, proxy: scenario.headers, gateway: { ...scenario.headers, ...extra } };
}

/** One request per target before measuring: a target that answers wrongly would make the numbers meaningless. */
async function checkAnswers(scenario: Scenario, servers: Record<TargetName, BenchServer>, headers: HeadersByTarget): Promise<void> {
  for (const target of TARGETS) {
    const response = await fetch(servers[target].url + scenario.path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers[target] },
      body: JSON.stringify(scenario.body),
    });
    const text = await response.text();
    if (response.status !== 200 || !text.includes(scenario.expect)) {
      throw new Error(`${servers[target].name} answered ${scenario.name} with ${response.status}, expected 200 containing "${scenario.expect}":\n${text.slice(0, 500)}`);
    }
  }
}

const medianBy = (runs: Measured[], figure: (run: Measured) => number): Measured => runs.toSorted((a, b) => figure(a) - figure(b))[Math.floor(runs.length / 2)]!;

/**
 * Rounds alternate between the targets and each reports its median round: on a shared machine a
 * slow spell then hits every target alike instead of whichever ran during it.
 */
async function alternatingRounds(count: number, run: (target: TargetName) => Promise<Measured>): Promise<Record<TargetName, Measured[]>> {
  const rounds = Object.fromEntries(TARGETS.map((target) => [target, [] as Measured[]])) as Record<TargetName, Measured[]>;
  for (let round = 0; round < count; round++) {
    for (const target of TARGETS) rounds[target].push(await run(target));
  }
  return rounds;
}

async function warmUpTarget(scenario: Scenario, server: BenchServer, headers: Record<string, string> | undefined): Promise<void> {
  const elapsed = await warmUp((seconds) => loadPlan(scenario, server, headers, "saturate", seconds), server, SETTINGS.warmupSeconds, SETTINGS.warmupLimitSeconds);
  console.error(`  ${server.name}: warm after ${elapsed} s`);
}

async function measureScenario(scenario: Scenario, servers: Record<TargetName, BenchServer>): Promise<ScenarioResult> {
  const headers = await headersFor(scenario, servers.gateway);
  await checkAnswers(scenario, servers, headers);
  for (const target of TARGETS) await warmUpTarget(scenario, servers[target], headers[target]);
  const measure = (mode: LoadPlan["mode"], seconds: number) => async (target: TargetName) => {
    await settled(servers[target].pid);
    return runLoad(loadPlan(scenario, servers[target], headers[target], mode, seconds), servers[target].pid);
  };
  const rateRounds = await alternatingRounds(SETTINGS.rateRounds, measure("rate", SETTINGS.rateSeconds));
  const saturationRounds = await alternatingRounds(SETTINGS.saturationRounds, measure("saturate", SETTINGS.saturationSeconds));
  const atRate = Object.fromEntries(TARGETS.map((target) => [target, medianBy(rateRounds[target], (run) => run.latency.p50)])) as ByTarget;
  const saturated = Object.fromEntries(TARGETS.map((target) => [target, medianBy(saturationRounds[target], (run) => run.throughput)])) as ByTarget;
  return { scenario, atRate, saturated };
}

function describeSetup(): string {
  return [
    `Bun ${Bun.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), load average ${loadavg()[0]!.toFixed(2)} before the run; all processes unpinned, sharing the cores.`,
    "Targets: bench/mock-upstream.ts (direct; lean: no recording, a stream leaves in 2 writes), bench/bare-proxy.ts, and the",
    `gateway as \`bun src/main.ts --port 0 --config <tmp>/config.json\` with GATEWAY_DB_URL=file:<tmp>/gateway.db (the tree as it is)`,
    `and what \`npm start\` sets: ${Object.entries(gatewayEnv).map(([name, value]) => `${name}=${value}`).join(" ") || "nothing"}.`,
    "Load generator: bench/load-generator.ts, one Bun process per run, apart from every server; raw keep-alive HTTP/1.1",
    "sockets, times from Bun.nanoseconds() (shown in µs). Fixed rate: open loop, paced by bench/pacer.ts (its own process),",
    `${SETTINGS.rateConnections} connections, a request finding none idle counts from its tick; ${SETTINGS.rateRounds} rounds alternating between the targets, each`,
    `target's median round (by p50) shown. Saturation: ${SETTINGS.connections} connections back to back, ${SETTINGS.saturationRounds} rounds alternating the same way, each target's`,
    "median round (by throughput) shown.",
    `Each target first gets saturation (not counted) in ${SETTINGS.warmupSeconds} s slices until its JIT compiler threads use under ${JIT_QUIET_SHARE * 100}% of a core`,
    `(at most ${SETTINGS.warmupLimitSeconds} s): steady state, not the compilation of its code. Each run starts once the target is idle (≤3 s wait).`,
    '"server CPU per request": user+system time of the measured process alone (mock, proxy or gateway) over its requests.',
  ].join("\n");
}

const workDir = mkdtempSync(join(tmpdir(), "gateway-bench-"));

async function cleanUp(): Promise<void> {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}

async function main(): Promise<number> {
  try {
    console.log(describeSetup());
    const servers = await startTargets(workDir);
    const results: ScenarioResult[] = [];
    if (chosen.length === 0) throw new Error(`no scenario named ${args.scenario!.join(", ")}; there are: ${SCENARIOS.map((scenario) => scenario.name).join(", ")}`);
    for (const scenario of chosen) {
      console.error(`measuring ${scenario.name}…`);
      results.push(await measureScenario(scenario, servers));
    }
    const memory = memoryOf(servers.gateway.pid);
    console.log(`\n${renderTable(results, SETTINGS)}`);
    const governance = governanceCost(results);
    if (governance) console.log(governance);
    console.log(`gateway RSS after the run: ${memory.rssMB.toFixed(1)} MB (peak ${memory.peakMB.toFixed(1)} MB)\n`);
    const checks = verdicts(results, memory.rssMB);
    for (const check of checks) console.log(`${check.pass ? "PASS" : "FAIL"}  ${check.text}`);
    return checks.every((check) => check.pass) ? 0 : 1;
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
