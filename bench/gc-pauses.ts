/**
 * What the collector costs the tail: `npx bun bench/gc-pauses.ts [--scenario chat] [--seconds 6]
 * [--env NAME=VALUE]...` runs one scenario at the bench's fixed rate against the bare proxy and
 * the gateway, each with JavaScriptCore's GC log on (`BUN_JSC_logGC=1`), and prints for each
 * heap (the main thread's, a worker thread's) the collections a second, their pauses, the share
 * of the run spent paused and the heap allocated between two collections. Every request that
 * arrives during a pause waits it out, so a run paused 1 % of the time has a p99 of about one pause.
 * `--env` starts the gateway with another setting (a JavaScriptCore heap option, say).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BenchServer } from "./processes";
import { stopAll } from "./processes";
import { runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { adminOf, loadPlan, startBareProxy, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", default: "chat" },
    seconds: { type: "string", default: "6" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const scenario = SCENARIOS.find((candidate) => candidate.name === args.scenario);
if (!scenario) throw new Error(`no scenario '${args.scenario}': one of ${SCENARIOS.map((candidate) => candidate.name).join(", ")}`);
const seconds = Number(args.seconds);
const gatewayEnv = Object.fromEntries(args.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));

/** One collection as JavaScriptCore logs it: `[GC<heap>: START M 50181kb => EdenCollection, ... => 30062kb, p=2.18ms ...END]`. */
const COLLECTION = /\[GC<(\w+)>: START M (\d+)kb => (\w+)Collection,.*? => (\d+)kb, p=([\d.]+)ms/g;

interface Collection {
  heap: string;
  kind: string;
  beforeKB: number;
  afterKB: number;
  pauseMs: number;
}

const collectionsIn = (log: string): Collection[] =>
  [...log.matchAll(COLLECTION)].map(([, heap, beforeKB, kind, afterKB, pauseMs]) => ({ heap: heap!, kind: kind!, beforeKB: Number(beforeKB), afterKB: Number(afterKB), pauseMs: Number(pauseMs) }));

/** Watches a server's output from a mark on, for the collections logged after it. */
function gcLog() {
  let text = "";
  let markedAt = 0;
  return {
    onOutput: (chunk: string) => void (text += chunk),
    mark: () => void (markedAt = text.length),
    collections: () => collectionsIn(text.slice(markedAt)),
  };
}

async function measure(server: BenchServer, log: ReturnType<typeof gcLog>, headers: Record<string, string> | undefined) {
  await warmUp((slice) => loadPlan(scenario!, server, headers, "saturate", slice), server, 1, 15);
  log.mark();
  const measured = await runLoad(loadPlan(scenario!, server, headers, "rate", seconds), server.pid);
  return { measured, collections: log.collections() };
}

function report(name: string, { measured, collections }: Awaited<ReturnType<typeof measure>>) {
  console.log(`${name}: ${measured.completed} requests at ${Math.round(measured.throughput)} req/s, p99 ${Math.round(measured.latency.p99)} µs, p99.9 ${Math.round(measured.latency.p999)} µs`);
  const heaps = Map.groupBy(collections, (collection) => collection.heap);
  for (const [heap, inHeap] of [...heaps].sort((a, b) => b[1].length - a[1].length)) {
    const pauses = inHeap.map((collection) => collection.pauseMs).sort((a, b) => a - b);
    const paused = pauses.reduce((sum, pause) => sum + pause, 0);
    const allocatedKB = inHeap.reduce((sum, collection) => sum + collection.beforeKB - collection.afterKB, 0);
    const kinds = [...Map.groupBy(inHeap, (collection) => collection.kind)].map(([kind, of]) => `${of.length} ${kind.toLowerCase()}`).join(", ");
    console.log(
      `  heap ${heap}: ${(inHeap.length / seconds).toFixed(1)} collections/s (${kinds}), pause median ${pauses[Math.floor(pauses.length / 2)]!.toFixed(2)} ms, max ${pauses.at(-1)!.toFixed(2)} ms, ` +
        `${((paused / (seconds * 1000)) * 100).toFixed(2)} % of the run paused, ${(allocatedKB / Math.max(1, measured.completed)).toFixed(1)} KB collected a request`,
    );
  }
}

const workDir = mkdtempSync(join(tmpdir(), "gc-pauses-"));
try {
  const mock = await startMockUpstream();
  const proxyLog = gcLog();
  const gatewayLog = gcLog();
  const proxy = await startBareProxy(mock, { BUN_JSC_logGC: "1" }, proxyLog.onOutput);
  const gateway = await startGateway(workDir, mock, { ...gatewayEnv, BUN_JSC_logGC: "1" }, undefined, "gateway", gatewayLog.onOutput);
  const headers = scenario.setup ? await scenario.setup(adminOf(gateway)) : undefined;
  report("bare proxy", await measure(proxy, proxyLog, undefined));
  report(`gateway${args.env.length ? ` (${args.env.join(" ")})` : ""}`, await measure(gateway, gatewayLog, headers));
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
