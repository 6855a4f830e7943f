/**
 * The regression guard (`npm run bench:guard [-- --rounds 6] [--scenario <name>]... [--mode
 * rate|saturate] [--rate 1000] [--against <commit>]`): the chat and chat stream scenarios (at
 * 1,000 req/s unless told), on the working tree and twice on the commit named in
 * bench/baseline, in interleaved rounds whose order turns each round. The two gateways of the
 * same commit give the noise (A against A); the working tree fails when its CPU a request, the
 * median of its per-round ratios to the baseline, grows by more than 5 % beyond that noise. Bytes
 * allocated a request (bench/allocations.ts) and each round's p50 and p99 are printed beside it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ALLOCATION_ENV, type AllocationCounter, allocationCounter } from "./allocations";
import { type BenchServer, settled, stopAll } from "./processes";
import type { LoadPlan } from "./load-generator";
import { runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { checkoutTree, commitOf } from "./tree-checkout";
import { loadPlan, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", multiple: true, default: ["chat", "chat stream"] },
    rounds: { type: "string", default: "6" },
    mode: { type: "string", default: "rate" },
    rate: { type: "string", default: "1000" },
    against: { type: "string" },
  },
});
/** Growth of CPU a request, beyond the A-against-A difference, that fails the guard. */
const LIMIT = 0.05;
const ROUND_SECONDS = 3;
/**
 * A fixed rate by default: the work a gateway does each second whatever its load (timers, log
 * batches) then falls on as many requests in every round, where at saturation a busy machine's
 * slow round spreads it over fewer. `--mode saturate` measures at saturation.
 */
const mode = args.mode as LoadPlan["mode"];
const rate = Number(args.rate);
const rounds = Number(args.rounds);
const repoRoot = resolve(import.meta.dir, "..");
const baseline = args.against ?? readFileSync(join(import.meta.dir, "baseline"), "utf8").split("\n")[0]!.trim();

interface Target {
  label: string;
  server: BenchServer;
  allocations: AllocationCounter;
}
interface Round {
  cpuMicros: number;
  allocatedBytes: number;
  /** The round's latency percentiles, µs. */
  p50: number;
  p99: number;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percent = (ratio: number) => `${ratio >= 1 ? "+" : "−"}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;

async function start(label: string, tree: string, workDir: string, mock: BenchServer): Promise<Target> {
  const allocations = allocationCounter();
  const server = await startGateway(mkdtempSync(join(workDir, "gw-")), mock, ALLOCATION_ENV, tree, label, allocations.onOutput);
  return { label, server, allocations };
}

async function measureRound(target: Target, scenario: (typeof SCENARIOS)[number]): Promise<Round> {
  await settled(target.server.pid);
  await target.allocations.mark(target.server);
  const measured = await runLoad(loadPlan(scenario, target.server, scenario.headers, mode, ROUND_SECONDS, rate), target.server.pid);
  await target.allocations.mark(target.server);
  return {
    cpuMicros: measured.serverCpuMicrosPerRequest,
    allocatedBytes: target.allocations.allocatedBetweenMarks() / Math.max(1, measured.completed),
    p50: measured.latency.p50,
    p99: measured.latency.p99,
  };
}

/** One figure of every round, then its median over the rounds. */
function printRow(label: string, what: string, values: number[], digits: number) {
  console.log(`  ${label.padEnd(24)} ${what.padEnd(16)} ${values.map((value) => value.toFixed(digits).padStart(8)).join("")}   median ${median(values).toFixed(digits)}`);
}

function printRows(targets: Target[], runs: Map<Target, Round[]>) {
  for (const target of targets) {
    const measured = runs.get(target)!;
    printRow(target.label, "CPU µs a request", measured.map((round) => round.cpuMicros), 1);
    printRow("", "KB allocated", measured.map((round) => round.allocatedBytes / 1024), 1);
    printRow("", "p50 µs", measured.map((round) => round.p50), 0);
    printRow("", "p99 µs", measured.map((round) => round.p99), 0);
  }
}

/** Prints the scenario's verdict; true when it passes. */
function verdict(name: string, [base, again, head]: Target[], runs: Map<Target, Round[]>): boolean {
  const ratios = (of: Target) => runs.get(of)!.map((round, index) => round.cpuMicros / runs.get(base!)![index]!.cpuMicros);
  const noise = ratios(again!);
  const growth = median(ratios(head!));
  const spread = Math.abs(median(noise) - 1);
  console.log(`  A against A (${again!.label} / ${base!.label}): median ${percent(median(noise))}, rounds ${percent(Math.min(...noise))} to ${percent(Math.max(...noise))}`);
  const passed = growth - 1 <= LIMIT + spread;
  console.log(
    `${passed ? "PASS" : "FAIL"}  ${name}: CPU a request ${percent(growth)} against ${baseline.slice(0, 7)} (median of per-round ratios; limit +${(LIMIT * 100).toFixed(0)} % beyond the A-against-A ${(spread * 100).toFixed(1)} %)`,
  );
  return passed;
}

const workDir = mkdtempSync(join(tmpdir(), "gateway-guard-"));
let failed = false;
try {
  const baseTree = checkoutTree(baseline);
  const mock = await startMockUpstream();
  const short = commitOf(baseline).slice(0, 7);
  const targets = [await start(`${short}`, baseTree, workDir, mock), await start(`${short} again`, baseTree, workDir, mock), await start("working tree", repoRoot, workDir, mock)];
  for (const name of args.scenario) {
    const scenario = SCENARIOS.find((candidate) => candidate.name === name && !candidate.setup);
    if (!scenario) throw new Error(`no scenario without setup named ${name}`);
    for (const target of targets) await warmUp((seconds) => loadPlan(scenario, target.server, scenario.headers, "saturate", seconds), target.server, 1, 15);
    const runs = new Map<Target, Round[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < rounds; round++) {
      // Each round starts with another target, so none is always measured right after the same one.
      for (let step = 0; step < targets.length; step++) {
        const target = targets[(round + step) % targets.length]!;
        runs.get(target)!.push(await measureRound(target, scenario));
      }
    }
    console.log(`${scenario.name}, ${mode === "rate" ? `${rate.toLocaleString("en-US")} req/s` : "saturation"}, ${rounds} rounds of ${ROUND_SECONDS} s:`);
    printRows(targets, runs);
    if (!verdict(scenario.name, targets, runs)) failed = true;
  }
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
