/**
 * Where a request's allocations go: `npx bun bench/allocation-sources.ts [--scenario chat]
 * [--requests 300] [--target gateway|proxy] [--top 25] [--disable <plugin>]... [--commit <commit>]` starts the bench mock and the gateway
 * (or the bare proxy) with bench/heap-probe.ts preloaded, warms it up, collects its whole heap,
 * then sends `--requests` requests one at a time and reads JavaScriptCore's heap statistics
 * before and after them. With no collection in between (the GC log says; the run is repeated
 * with fewer requests when one happened) the difference is what those requests allocated:
 * objects by type a request. Then three rounds at 1,000 req/s counted as bench/allocations.ts counts
 * (what the collections freed between two full collections): bytes a request. Counts, not times: a loaded machine changes
 * neither.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { allocationCounter } from "./allocations";
import { type BenchServer, stopAll } from "./processes";
import { runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { checkoutTree } from "./tree-checkout";
import { adminOf, loadPlan, startBareProxy, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", default: "chat" },
    requests: { type: "string", default: "300" },
    target: { type: "string", default: "gateway" },
    top: { type: "string", default: "25" },
    seconds: { type: "string", default: "3" },
    env: { type: "string", multiple: true, default: [] },
    disable: { type: "string", multiple: true, default: [] },
    /** Another commit's gateway (its tree extracted by bench/tree-checkout.ts), to compare its counts with this one's. */
    commit: { type: "string" },
  },
});
const scenario = SCENARIOS.find((candidate) => candidate.name === args.scenario);
if (!scenario) throw new Error(`no scenario '${args.scenario}': one of ${SCENARIOS.map((candidate) => candidate.name).join(", ")}`);
const extraEnv = Object.fromEntries(args.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
/**
 * A young generation of 1 GB and no collections on Bun's timer: a window of a few thousand
 * requests then runs without a collection, and the heap's capacity grows by what they allocate.
 */
const PROBE_ENV = { ...extraEnv, BUN_JSC_largeHeapSize: String(1024 ** 3), BUN_GC_TIMER_DISABLE: "1", BUN_JSC_logGC: "1", BUN_OPTIONS: `--preload ${import.meta.dir}/heap-probe.ts` };

interface Probe {
  heapSize: number;
  heapCapacity: number;
  extraMemorySize: number;
  objectTypeCounts: Record<string, number>;
}

function output() {
  let text = "";
  const waiters = new Set<() => void>();
  return {
    onOutput: (chunk: string) => {
      text += chunk;
      for (const waiter of waiters) waiter();
    },
    length: () => text.length,
    since: (from: number) => text.slice(from),
    waitFor: (marker: string, from: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (text.indexOf(marker, from) === -1) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

async function probe(server: BenchServer, log: ReturnType<typeof output>): Promise<Probe> {
  const from = log.length();
  process.kill(server.pid, "SIGUSR1");
  await log.waitFor("[/heap-probe]", from);
  const text = log.since(from);
  return JSON.parse(text.slice(text.indexOf("[heap-probe]") + 12, text.indexOf("[/heap-probe]"))) as Probe;
}

async function collect(server: BenchServer, log: ReturnType<typeof output>): Promise<void> {
  const from = log.length();
  process.kill(server.pid, "SIGUSR2");
  await log.waitFor("[gc-mark]", from);
}

async function sendOneByOne(server: BenchServer, headers: Record<string, string> | undefined, count: number): Promise<void> {
  const init = { method: "POST", headers: { "content-type": "application/json", ...scenario!.headers, ...headers }, body: JSON.stringify(scenario!.body) };
  for (let index = 0; index < count; index++) {
    const response = await fetch(server.url + scenario!.path, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${server.name} answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** The main thread's heap: the one whose full collection the mark asked for. */
function mainHeapBefore(text: string): string | undefined {
  const starts = [...text.slice(0, text.lastIndexOf("[gc-mark]")).matchAll(/\[GC<(\w+)>: START/g)];
  return starts.at(-1)?.[1];
}

/**
 * One window of `count` requests between two probes, after as many that use up the free space a
 * full collection leaves in partly used blocks (so the capacity grows by what the window
 * allocates); undefined when the main heap collected during it.
 */
async function window(server: BenchServer, log: ReturnType<typeof output>, headers: Record<string, string> | undefined, count: number) {
  const from = log.length();
  await collect(server, log);
  const heap = mainHeapBefore(log.since(from));
  await sendOneByOne(server, headers, count);
  const before = await probe(server, log);
  await sendOneByOne(server, headers, count);
  const after = await probe(server, log);
  const during = log.since(from);
  const collected = during.slice(during.indexOf("[gc-mark]")).indexOf(`[GC<${heap}>: START`);
  if (!heap || collected !== -1) {
    const asked = /Requesting GC because [^\n]*/.exec(during.slice(during.indexOf("[gc-mark]")));
    console.log(`  (the heap collected within the window${asked ? `: ${asked[0]}` : ""}; again with fewer requests)`);
    return undefined;
  }
  return { before, after };
}

function report({ before, after }: { before: Probe; after: Probe }, count: number): void {
  const perRequest = (a: number, b: number) => (b - a) / count;
  console.log(`${count} requests of '${scenario!.name}' to the ${args.target}, no collection between the probes`);
  console.log(`  allocated   ${(perRequest(before.heapCapacity, after.heapCapacity) / 1024).toFixed(2)} KB a request (the heap's capacity grew by it; extra memory ${(perRequest(before.extraMemorySize, after.extraMemorySize) / 1024).toFixed(2)} KB of it)`);
  const types = new Set([...Object.keys(before.objectTypeCounts), ...Object.keys(after.objectTypeCounts)]);
  const rows = [...types].map((type) => ({ type, added: perRequest(before.objectTypeCounts[type] ?? 0, after.objectTypeCounts[type] ?? 0) })).filter((row) => Math.abs(row.added) >= 0.05);
  rows.sort((a, b) => b.added - a.added);
  const total = rows.reduce((sum, row) => sum + row.added, 0);
  console.log(`  objects     ${total.toFixed(1)} a request`);
  for (const row of rows.slice(0, Number(args.top))) console.log(`    ${row.added.toFixed(2).padStart(8)}  ${row.type}`);
}

const RATE = 1_000;

const workDir = mkdtempSync(join(tmpdir(), "allocation-sources-"));
try {
  const mock = await startMockUpstream();
  const log = output();
  const counter = allocationCounter();
  const onOutput = (text: string) => {
    log.onOutput(text);
    counter.onOutput(text);
  };
  const server = args.target === "proxy" ? await startBareProxy(mock, PROBE_ENV, onOutput) : await startGateway(workDir, mock, PROBE_ENV, args.commit ? checkoutTree(args.commit) : undefined, "gateway", onOutput);
  const headers = args.target === "proxy" ? undefined : scenario.setup ? await scenario.setup(adminOf(server)) : undefined;
  for (const plugin of args.disable) await adminOf(server, "PUT")(`/api/plugins/${plugin}`, { enabled: false });
  await warmUp((slice) => loadPlan(scenario, server, headers, "saturate", slice), server, 1, 15);
  await sendOneByOne(server, headers, 200);
  let count = Number(args.requests);
  for (let attempt = 0; attempt < 6; attempt++) {
    const measured = await window(server, log, headers, count);
    if (measured) {
      report(measured, count);
      break;
    }
    count = Math.max(20, Math.floor(count * 0.7));
  }
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    await counter.mark(server);
    const measured = await runLoad(loadPlan(scenario, server, headers, "rate", Number(args.seconds), RATE), server.pid);
    await counter.mark(server);
    rounds.push(counter.allocatedBetweenMarks() / Math.max(1, measured.completed) / 1024);
  }
  console.log(`  collected   ${rounds.map((kb) => kb.toFixed(1)).join(", ")} KB a request at ${RATE} req/s (bench/allocations.ts: three rounds of ${args.seconds} s)`);
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
