/**
 * What the slowest streams wait on: `npx bun bench/stream-phases.ts [--scenario "chat stream"]
 * [--seconds 4] [--rate 2000]` runs one streamed scenario at a fixed rate against a gateway
 * started with GATEWAY_STREAM_PHASES_FILE, which has each relayed stream note, in ms from the
 * request's arrival, when its upstream's headers came, its first upstream byte, its first byte
 * written to the client, and its settling, with its relays and the longest a chunk waited between
 * its read and its write (src/inference/stream-phases.ts). It prints each phase's p50, p99 and
 * p99.9 over the measured streams, and the phases of the slowest 1 % (by settling) beside the
 * median stream's: where their time went.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { StreamPhases } from "../src/inference/stream-phases";
import { stopAll } from "./processes";
import { runLoad } from "./run-load";
import { SCENARIOS } from "./scenarios";
import { adminOf, loadPlan, startGateway, startMockUpstream, warmUp } from "./targets";

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    scenario: { type: "string", default: "chat stream" },
    seconds: { type: "string", default: "4" },
    rate: { type: "string", default: "2000" },
  },
});
const scenario = SCENARIOS.find((candidate) => candidate.name === args.scenario && candidate.stream);
if (!scenario) throw new Error(`no streamed scenario '${args.scenario}': one of ${SCENARIOS.filter((candidate) => candidate.stream).map((candidate) => candidate.name).join(", ")}`);

const EXIT_WAIT_MS = 30_000;
const PHASES = ["headers", "firstUpstreamByte", "firstClientByte", "settled", "longestRelay", "relays"] as const;

const rank = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
const sortedOf = (streams: StreamPhases[], phase: (typeof PHASES)[number]) => streams.map((stream) => stream[phase] ?? Number.NaN).sort((a, b) => a - b);
const cell = (value: number) => (phaseIsCount(value) ? value.toFixed(1) : value.toFixed(2)).padStart(10);
const phaseIsCount = (value: number) => Number.isInteger(value) && value < 1000;

function report(streams: StreamPhases[]): void {
  const bySettled = [...streams].sort((a, b) => (a.settled ?? 0) - (b.settled ?? 0));
  const slowest = bySettled.slice(Math.floor(bySettled.length * 0.99));
  console.log(`${streams.length} streams of '${scenario!.name}' at ${args.rate} req/s; ms from the request's arrival (relays: a count)`);
  console.log(`${"phase".padEnd(20)}${"p50".padStart(10)}${"p99".padStart(10)}${"p99.9".padStart(10)}${"slowest 1 %".padStart(14)}`);
  for (const phase of PHASES) {
    const all = sortedOf(streams, phase);
    const ofSlowest = sortedOf(slowest, phase);
    console.log(`${phase.padEnd(20)}${cell(rank(all, 0.5))}${cell(rank(all, 0.99))}${cell(rank(all, 0.999))}${cell(rank(ofSlowest, 0.5)).padStart(14)}`);
  }
}

const workDir = mkdtempSync(join(tmpdir(), "stream-phases-"));
const phasesFile = join(workDir, "phases.json");
try {
  const mock = await startMockUpstream();
  const gateway = await startGateway(workDir, mock, { GATEWAY_STREAM_PHASES_FILE: phasesFile });
  const headers = scenario.setup ? await scenario.setup(adminOf(gateway)) : undefined;
  await warmUp((slice) => loadPlan(scenario, gateway, headers, "saturate", slice), gateway, 1, 15);
  const measured = await runLoad(loadPlan(scenario, gateway, headers, "rate", Number(args.seconds), Number(args.rate)), gateway.pid);
  console.log(`client side: p50 ${Math.round(measured.latency.p50)} µs, p99 ${Math.round(measured.latency.p99)} µs, first byte p99 ${Math.round(measured.firstByte.p99)} µs`);
  process.kill(gateway.pid, "SIGTERM");
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (!existsSync(phasesFile) && Date.now() < deadline) await Bun.sleep(100);
  await Bun.sleep(200);
  const streams = JSON.parse(readFileSync(phasesFile, "utf8")) as StreamPhases[];
  // Streams settle in order of their end: the measured ones are the last.
  report(streams.slice(-measured.completed));
} finally {
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}
