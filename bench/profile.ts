/**
 * Where the gateway's CPU goes, per request: `npx bun bench/profile.ts [--scenario chat] [--seconds 5]
 * [--proxy] [--top 25] [--rate 2000] [--callers name] [--commit <commit>]`. Runs one scenario of the overhead bench at saturation (or,
 * with --rate, at that fixed rate, as the latency half of the bench does) under Linux
 * `perf record`, with JavaScriptCore writing a JITDump so compiled JS functions have names, then
 * prints the CPU each thread spends a request and the main thread's by JS function. `--commit`
 * profiles the gateway of another commit (bench/tree-checkout.ts) instead of the working tree's. A function's
 * "self" includes the native code it calls (fetch, Response, JSON, the allocator), which Bun's
 * --cpu-prof leaves out; and these are CPU samples, where --cpu-prof samples wall time.
 * Needs `perf` and the right to profile another process (root, or perf_event_paranoid ≤ 1).
 * perf itself slows the target: compare profiles with each other, not with `npm run bench`.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writePerfMap } from "./jit-dump";
import { callersOf, costByFunction, parseSamples, samplesByThread } from "./perf-samples";
import { settled, stopAll } from "./processes";
import { runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { checkoutTree } from "./tree-checkout";
import { adminOf, loadPlan, startBareProxy, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", default: "chat" },
    seconds: { type: "string", default: "5" },
    proxy: { type: "boolean", default: false },
    top: { type: "string", default: "25" },
    frequency: { type: "string", default: "2999" },
    rate: { type: "string" },
    // Also prints the call chains under which the JS function of that name ran.
    callers: { type: "string" },
    commit: { type: "string" },
  },
});
const scenario = SCENARIOS.find((candidate) => candidate.name === args.scenario);
if (!scenario) throw new Error(`no scenario named ${args.scenario}; there are: ${SCENARIOS.map((candidate) => candidate.name).join(", ")}`);
if (!Bun.which("perf")) throw new Error("bench/profile.ts needs Linux perf (Debian: linux-perf)");
const seconds = Number(args.seconds);
const frequency = Number(args.frequency);

const workDir = mkdtempSync(join(tmpdir(), "gateway-profile-"));
const jitDump = { BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: workDir };

/** perf writes its file's header once it is attached; the load starts after that. */
async function attached(dataPath: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (statSync(dataPath, { throwIfNoEntry: false })?.size) return;
    await Bun.sleep(20);
  }
  throw new Error("perf record did not start; is profiling allowed (perf_event_paranoid)?");
}

const row = (label: string, micros: number, extra = "") => `  ${micros.toFixed(1).padStart(7)} µs  ${extra}${label}`;

try {
  const mock = await startMockUpstream();
  const server = args.proxy ? await startBareProxy(mock, jitDump) : await startGateway(workDir, mock, jitDump, args.commit ? checkoutTree(args.commit) : undefined);
  const headers = { ...scenario.headers, ...(scenario.setup && !args.proxy ? await scenario.setup(adminOf(server)) : {}) };
  await warmUp((duration) => loadPlan(scenario, server, headers, "saturate", duration), server, 1, 15);
  await settled(server.pid);
  const measuredPlan = (duration: number) => (args.rate ? loadPlan(scenario, server, headers, "rate", duration, Number(args.rate)) : loadPlan(scenario, server, headers, "saturate", duration));

  const dataPath = join(workDir, "perf.data");
  const perf = Bun.spawn(["perf", "record", "-k", "mono", "-F", String(frequency), "-g", "-p", String(server.pid), "-o", dataPath], { stdout: "ignore", stderr: "pipe" });
  await attached(dataPath);
  const measured = await runLoad(measuredPlan(seconds), server.pid);
  perf.kill("SIGINT");
  await perf.exited;
  // Stopped by SIGINT, perf exits non-zero even when it wrote everything.
  const report = await new Response(perf.stderr).text();
  if (!report.includes("Captured and wrote")) throw new Error(`perf record failed:\n${report}`);

  const dump = readdirSync(workDir).find((name) => /^jit-.*\.dump$/.test(name));
  if (!dump) throw new Error("the target wrote no JITDump");
  const perfMap = writePerfMap(join(workDir, dump), server.pid);
  const script = Bun.spawnSync(["perf", "script", "-i", dataPath, "-F", "comm,tid,ip,sym"], { stdout: "pipe", stderr: "ignore" });
  rmSync(perfMap, { force: true });
  const samples = parseSamples(script.stdout.toString());

  const requests = measured.completed + measured.errors;
  const microsPer = (count: number) => (count * 1e6) / frequency / requests;
  console.log(`${scenario.name}, ${server.name} at ${args.rate ? `${args.rate} req/s` : "saturation"} under perf: ${measured.throughput.toFixed(0)} req/s, ${microsPer(samples.length).toFixed(1)} µs of CPU a request in all`);
  console.log("\nby thread (CPU a request):");
  for (const [thread, count] of samplesByThread(samples, server.pid)) console.log(row(thread, microsPer(count)));
  const main = samples.filter((sample) => sample.tid === server.pid);
  console.log(`\nmain thread by JS function (self: its own code and the native code it calls; total: everything under it):`);
  for (const cost of costByFunction(main).slice(0, Number(args.top))) console.log(row(cost.name, microsPer(cost.self), `${microsPer(cost.total).toFixed(1).padStart(6)} total  `));
  if (args.callers) {
    console.log(`\ncall chains of ${args.callers} on the main thread:`);
    for (const [chain, count] of callersOf(main, args.callers).slice(0, Number(args.top))) console.log(row(chain, microsPer(count)));
  }
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
