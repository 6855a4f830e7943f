/**
 * What each feature costs a request: `npx bun bench/feature-costs.ts [--rounds 3] [--feature
 * <name>]... [--scenario chat] [--mode rate|saturate] [--rate 1000]`. One gateway of the working tree, the bench's (every built-in
 * plugin on, request content logged); each feature is turned off and on through the management
 * API in turn, and each state measured (at 1,000 req/s unless told), in rounds that interleave every feature's
 * two states, so a slow spell of a shared machine falls on both sides. Prints, per feature, the
 * CPU and the bytes allocated a request (bench/allocations.ts) with it off and on, and the
 * difference: the median of the per-round differences.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ALLOCATION_ENV, allocationCounter } from "./allocations";
import { type BenchServer, settled, stopAll } from "./processes";
import type { LoadPlan } from "./load-generator";
import { runLoad } from "./run-load";
import { type AdminFetch, SCENARIOS } from "./scenarios";
import { adminOf, loadPlan, startGateway, startMockUpstream, warmUp } from "./targets";
import { FEATURES, type Feature } from "./features";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rounds: { type: "string", default: "3" },
    mode: { type: "string", default: "rate" },
    rate: { type: "string", default: "1000" },
    feature: { type: "string", multiple: true },
    scenario: { type: "string", default: "chat" },
  },
});
const ROUND_SECONDS = 3;
/**
 * A fixed rate by default: the work a gateway does each second whatever its load (timers, log
 * batches) then falls on as many requests in every round, where at saturation a busy machine's
 * slow round spreads it over fewer. `--mode saturate` measures at saturation.
 */
const mode = args.mode as LoadPlan["mode"];
const rate = Number(args.rate);
const rounds = Number(args.rounds);
const scenario = SCENARIOS.find((candidate) => candidate.name === args.scenario && !candidate.setup);
if (!scenario) throw new Error(`no scenario without setup named ${args.scenario}`);
const features: Feature[] = args.feature ? FEATURES.filter((feature) => args.feature!.includes(feature.name)) : FEATURES;

interface Measure {
  cpuMicros: number;
  allocatedKB: number;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One run in the state the gateway is in, with the extra headers that state needs. */
async function measure(gateway: BenchServer, allocations: ReturnType<typeof allocationCounter>, headers: Record<string, string>): Promise<Measure> {
  await settled(gateway.pid);
  await allocations.mark(gateway);
  const measured = await runLoad(loadPlan(scenario!, gateway, { ...scenario!.headers, ...headers }, mode, ROUND_SECONDS, rate), gateway.pid);
  await allocations.mark(gateway);
  return { cpuMicros: measured.serverCpuMicrosPerRequest, allocatedKB: allocations.allocatedBetweenMarks() / Math.max(1, measured.completed) / 1024 };
}

async function measureBoth(gateway: BenchServer, allocations: ReturnType<typeof allocationCounter>, admin: (method?: string) => AdminFetch, feature: Feature) {
  await feature.off(admin);
  const off = await measure(gateway, allocations, {});
  const headers = (await feature.on(admin)) ?? {};
  const on = await measure(gateway, allocations, headers);
  await (feature.restore ?? feature.off)(admin);
  return { off, on };
}

function report(results: Map<Feature, Array<{ off: Measure; on: Measure }>>) {
  const cell = (value: number, digits = 1) => value.toFixed(digits).padStart(9);
  console.log(`\n${scenario!.name} ${mode === "rate" ? `at ${rate.toLocaleString("en-US")} req/s` : "at saturation"}, ${rounds} rounds of ${ROUND_SECONDS} s a state; medians (the difference: of the per-round differences)`);
  console.log(`${"feature".padEnd(56)}${"CPU µs off".padStart(11)}${"on".padStart(9)}${"added".padStart(9)}${"KB off".padStart(10)}${"on".padStart(9)}${"added".padStart(9)}`);
  for (const [feature, runs] of results) {
    const cpu = (state: "off" | "on") => median(runs.map((run) => run[state].cpuMicros));
    const kb = (state: "off" | "on") => median(runs.map((run) => run[state].allocatedKB));
    const addedCpu = median(runs.map((run) => run.on.cpuMicros - run.off.cpuMicros));
    const addedKb = median(runs.map((run) => run.on.allocatedKB - run.off.allocatedKB));
    console.log(`${feature.label.padEnd(56)}${cell(cpu("off"))}  ${cell(cpu("on"))}${cell(addedCpu)} ${cell(kb("off"))}${cell(kb("on"))}${cell(addedKb)}`);
  }
}

const workDir = mkdtempSync(join(tmpdir(), "gateway-features-"));
try {
  const mock = await startMockUpstream();
  const allocations = allocationCounter();
  const gateway = await startGateway(workDir, mock, ALLOCATION_ENV, undefined, "gateway", allocations.onOutput);
  const admin = (method = "POST") => adminOf(gateway, method);
  for (const feature of features) await feature.prepare?.(admin, mock);
  await warmUp((seconds) => loadPlan(scenario, gateway, scenario.headers, "saturate", seconds), gateway, 1, 15);
  const results = new Map<Feature, Array<{ off: Measure; on: Measure }>>(features.map((feature) => [feature, []]));
  for (let round = 0; round < rounds; round++) {
    for (const feature of features) {
      const both = await measureBoth(gateway, allocations, admin, feature);
      results.get(feature)!.push(both);
      console.log(`round ${round + 1} ${feature.name}: CPU ${both.off.cpuMicros.toFixed(1)} → ${both.on.cpuMicros.toFixed(1)} µs, ${both.off.allocatedKB.toFixed(1)} → ${both.on.allocatedKB.toFixed(1)} KB a request`);
    }
  }
  report(results);
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
