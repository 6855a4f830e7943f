/**
 * Two builds of the gateway side by side: `bun bench/compare.ts <tree A> <tree B> [--scenario
 * <name>]... [--mode rate|saturate] [--rounds 6]`. Each tree is a checkout (a `git worktree` of
 * the commit to compare, its node_modules linked in). Both gateways, the bare proxy and the mock
 * run at once; rounds alternate A, proxy, B, so a slow spell of a shared machine hits all three
 * alike. Prints every round and the medians: the single runs of `bun run bench` cannot tell a
 * 10 µs change from noise, interleaved rounds can.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { LoadPlan } from "./load-generator";
import { type BenchServer, settled, stopAll } from "./processes";
import { type Measured, runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { adminOf, LOAD, loadPlan, startBareProxy, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  allowPositionals: true,
  options: {
    scenario: { type: "string", multiple: true, default: ["chat"] },
    mode: { type: "string", default: "rate" },
    rounds: { type: "string", default: "6" },
  },
});
const [treeA, treeB] = positionals.map((tree) => resolve(tree));
if (!treeA || !treeB) throw new Error("usage: bun bench/compare.ts <tree A> <tree B> [--scenario <name>]... [--mode rate|saturate] [--rounds 6]");
const mode = args.mode as LoadPlan["mode"];
const rounds = Number(args.rounds);
const SECONDS = { rate: 4, saturate: 3 } as const;

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
const row = (name: string, runs: Measured[], figure: (run: Measured) => number, unit: string) =>
  `  ${name.padEnd(11)} ${runs.map((run) => figure(run).toFixed(0).padStart(7)).join("")}   median ${median(runs.map(figure)).toFixed(0)} ${unit}`;

const workDir = mkdtempSync(join(tmpdir(), "gateway-compare-"));
try {
  const mock = await startMockUpstream();
  const proxy = await startBareProxy(mock);
  const targets = [await startGateway(mkdtempSync(join(workDir, "a-")), mock, {}, treeA, "A"), proxy, await startGateway(mkdtempSync(join(workDir, "b-")), mock, {}, treeB, "B")];
  for (const name of args.scenario) {
    const scenario = SCENARIOS.find((candidate) => candidate.name === name);
    if (!scenario) throw new Error(`no scenario named ${name}; there are: ${SCENARIOS.map((candidate) => candidate.name).join(", ")}`);
    const headers = new Map<BenchServer, Record<string, string> | undefined>();
    for (const target of targets) {
      const gatewayOnly = target !== proxy && scenario.setup ? await scenario.setup(adminOf(target)) : {};
      headers.set(target, { ...scenario.headers, ...gatewayOnly });
    }
    for (const target of targets) await warmUp((seconds) => loadPlan(scenario, target, headers.get(target), "saturate", seconds), target, 1, 15);
    const runs = new Map<BenchServer, Measured[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        await settled(target.pid);
        runs.get(target)!.push(await runLoad(loadPlan(scenario, target, headers.get(target), mode, SECONDS[mode]), target.pid));
      }
    }
    console.log(`${scenario.name}, ${mode === "rate" ? `${LOAD.rate.toLocaleString("en-US")} req/s` : "saturation"}, ${rounds} rounds:`);
    for (const target of targets) {
      const measured = runs.get(target)!;
      console.log(`${target.name}`);
      console.log(row("p50", measured, (run) => run.latency.p50, "µs"));
      console.log(row("p99", measured, (run) => run.latency.p99, "µs"));
      console.log(row("throughput", measured, (run) => run.throughput, "req/s"));
      console.log(row("CPU", measured, (run) => run.serverCpuMicrosPerRequest, "µs a request"));
    }
  }
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
