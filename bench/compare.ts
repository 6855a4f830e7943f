/**
 * Two builds of the gateway side by side: `npx bun bench/compare.ts <tree A> <tree B> [--scenario
 * <name>]... [--mode rate|saturate] [--rounds 6]`. Each tree is a checkout (a `git worktree` of
 * the commit to compare, its node_modules linked in). Both gateways, the bare proxy and the mock
 * run at once; rounds alternate A, proxy, B, so a slow spell of a shared machine hits all three
 * alike. Prints every round and the medians: the single runs of `npm run bench` cannot tell a
 * 10 µs change from noise, interleaved rounds can. One tree twice measures a setting instead:
 * `--b-env NAME=VALUE` starts B with that variable too (a JavaScriptCore option, say), and
 * `--b-disable <plugin>` turns that plugin off in B (`logging`: what request logs cost).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { LoadPlan } from "./load-generator";
import { type BenchServer, memoryOf, settled, stopAll } from "./processes";
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
    "b-env": { type: "string", multiple: true, default: [] },
    "b-disable": { type: "string", multiple: true, default: [] },
  },
});
const [treeA, treeB] = positionals.map((tree) => resolve(tree));
if (!treeA || !treeB) throw new Error("usage: npx bun bench/compare.ts <tree A> <tree B> [--scenario <name>]... [--mode rate|saturate] [--rounds 6] [--b-env NAME=VALUE]... [--b-disable <plugin>]...");
const envB = Object.fromEntries(
  args["b-env"].map((pair) => {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`--b-env takes NAME=VALUE, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
const mode = args.mode as LoadPlan["mode"];
const rounds = Number(args.rounds);
const SECONDS = { rate: 4, saturate: 3 } as const;

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** A run, with the target's resident memory right after it. */
type Round = Measured & { rssMB: number };

const row = (name: string, runs: Round[], figure: (run: Round) => number, unit: string) =>
  `  ${name.padEnd(11)} ${runs.map((run) => figure(run).toFixed(0).padStart(7)).join("")}   median ${median(runs.map(figure)).toFixed(0)} ${unit}`;

const workDir = mkdtempSync(join(tmpdir(), "gateway-compare-"));
try {
  const mock = await startMockUpstream();
  const proxy = await startBareProxy(mock);
  const gatewayB = await startGateway(mkdtempSync(join(workDir, "b-")), mock, envB, treeB, "B");
  for (const plugin of args["b-disable"]) await adminOf(gatewayB, "PUT")(`/api/plugins/${plugin}`, { enabled: false });
  const targets = [await startGateway(mkdtempSync(join(workDir, "a-")), mock, {}, treeA, "A"), proxy, gatewayB];
  for (const name of args.scenario) {
    const scenario = SCENARIOS.find((candidate) => candidate.name === name);
    if (!scenario) throw new Error(`no scenario named ${name}; there are: ${SCENARIOS.map((candidate) => candidate.name).join(", ")}`);
    const headers = new Map<BenchServer, Record<string, string> | undefined>();
    for (const target of targets) {
      const gatewayOnly = target !== proxy && scenario.setup ? await scenario.setup(adminOf(target)) : {};
      headers.set(target, { ...scenario.headers, ...gatewayOnly });
    }
    for (const target of targets) await warmUp((seconds) => loadPlan(scenario, target, headers.get(target), "saturate", seconds), target, 1, 15);
    const runs = new Map<BenchServer, Round[]>(targets.map((target) => [target, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        await settled(target.pid);
        const measured = await runLoad(loadPlan(scenario, target, headers.get(target), mode, SECONDS[mode]), target.pid);
        runs.get(target)!.push({ ...measured, rssMB: memoryOf(target.pid).rssMB });
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
      console.log(row("RSS after", measured, (run) => run.rssMB, "MB"));
    }
  }
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
