import type { PeerName } from "./peers";
import type { Measured } from "./run-load";
import type { Scenario } from "./scenarios";
import type { ShapeResults, StreamRun } from "./shapes";

/** What every run measures; `--peers` adds PeerName targets after them. */
export const TARGETS = ["direct", "proxy", "gateway"] as const;
export type TargetName = (typeof TARGETS)[number] | PeerName;
/** A figure per target: the three of every run, and the peers where they took part. */
export type ByTarget = Record<(typeof TARGETS)[number], Measured> & Partial<Record<PeerName, Measured>>;

export interface ScenarioResult {
  scenario: Scenario;
  atRate: ByTarget;
  saturated?: ByTarget;
  /** Bytes the gateway's database grew by a request at the fixed rate: the request log's whole cost on disk. */
  logBytesPerRequest: number;
}

export const LIMITS = {
  addedP50Micros: 100,
  addedP99Micros: 500,
  cpuShareOfProxy: 2,
  rssMB: 150,
  rssPerStreamKB: 40,
  addedChunkDelayP99Ms: 5,
  controlRouteP99Ms: 50,
  chatAllocatedKB: 10,
};
/** The scenarios the tail and cost-a-request targets are about. */
const TAIL_SCENARIOS = ["chat", "chat stream"];

type Row = { label: string; values: (number | undefined)[]; difference: string; decimals?: number };

const number = (value: number | undefined, decimals = 0) =>
  value === undefined || Number.isNaN(value) ? "—" : value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const signed = (value: number, decimals = 0) => `${value >= 0 ? "+" : "−"}${number(Math.abs(value), decimals)}`;

/** A row of one figure per column target, its last column the gateway's minus the bare proxy's. */
function row(label: string, runs: ByTarget, columns: TargetName[], pick: (run: Measured) => number): Row {
  const values = columns.map((target) => (runs[target] ? pick(runs[target]) : undefined));
  return { label, values, difference: signed(pick(runs.gateway) - pick(runs.proxy)) };
}

function addedOverDirect(label: string, runs: ByTarget, columns: TargetName[], pick: (run: Measured) => number): Row {
  const direct = pick(runs.direct);
  const values = columns.map((target) => (target === "direct" || !runs[target] ? undefined : pick(runs[target]) - direct));
  return { label, values, difference: signed(pick(runs.gateway) - pick(runs.proxy)) };
}

/** KB the main thread allocated a request, where it was counted (the bare proxy and the gateway). */
const kilobytesOf = (run: Measured | undefined) => (run?.allocatedBytesPerRequest === undefined ? undefined : run.allocatedBytesPerRequest / 1024);

function allocatedRow(runs: ByTarget, columns: TargetName[]): Row {
  const [gateway, proxy] = [kilobytesOf(runs.gateway), kilobytesOf(runs.proxy)];
  return { label: "  allocated per request (KB)", values: columns.map((target) => kilobytesOf(runs[target])), difference: gateway === undefined || proxy === undefined ? "" : signed(gateway - proxy, 1), decimals: 1 };
}

function rateRows({ scenario, atRate, logBytesPerRequest }: ScenarioResult, columns: TargetName[]): Row[] {
  return [
    row("  p50 (µs)", atRate, columns, (run) => run.latency.p50),
    row("  p99 (µs)", atRate, columns, (run) => run.latency.p99),
    row("  p99.9 (µs)", atRate, columns, (run) => run.latency.p999),
    row("  mean (µs)", atRate, columns, (run) => run.latency.mean),
    ...(scenario.stream ? [row("  first byte p50 (µs)", atRate, columns, (run) => run.firstByte.p50), row("  first byte p99 (µs)", atRate, columns, (run) => run.firstByte.p99)] : []),
    addedOverDirect("  p50 added over direct (µs)", atRate, columns, (run) => run.latency.p50),
    addedOverDirect("  p99 added over direct (µs)", atRate, columns, (run) => run.latency.p99),
    row("  achieved rate (req/s)", atRate, columns, (run) => run.throughput),
    row("  server CPU per request (µs)", atRate, columns, (run) => run.serverCpuMicrosPerRequest),
    allocatedRow(atRate, columns),
    { label: "  log bytes per request", values: columns.map((target) => (target === "gateway" ? logBytesPerRequest : undefined)), difference: "" },
  ];
}

function saturationRows(scenario: Scenario, saturated: ByTarget, columns: TargetName[]): Row[] {
  const throughput = row("  throughput (req/s)", saturated, columns, (run) => run.throughput);
  throughput.difference += ` (${number((saturated.gateway.throughput / saturated.proxy.throughput) * 100)}%)`;
  return [
    throughput,
    row("  p50 (µs)", saturated, columns, (run) => run.latency.p50),
    row("  p99 (µs)", saturated, columns, (run) => run.latency.p99),
    ...(scenario.stream ? [row("  first byte p50 (µs)", saturated, columns, (run) => run.firstByte.p50)] : []),
    row("  server CPU per request (µs)", saturated, columns, (run) => run.serverCpuMicrosPerRequest),
  ];
}

const errorRow = (label: string, runs: ByTarget, columns: TargetName[]): Row[] =>
  columns.some((target) => (runs[target]?.errors ?? 0) > 0) ? [row(`  ${label} (non-2xx or dropped)`, runs, columns, (run) => run.errors)] : [];

export interface TableSettings {
  rate: number;
  rateSeconds: number;
  rateRounds: number;
  connections: number;
  saturationSeconds: number;
  saturationRounds: number;
}

const COLUMN_TITLES: Record<TargetName, string> = { direct: "direct", proxy: "bare proxy", gateway: "gateway", nginx: "nginx", portkey: "Portkey" };

/** The one table: every scenario's fixed-rate and saturation figures, side by side; a peer's column where `--peers` measured one. */
export function renderTable(results: ScenarioResult[], settings: TableSettings, columns: TargetName[]): string {
  const widths = [34, ...columns.map((target) => (target === "proxy" ? 12 : 11)), 18];
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!))).join(" ");
  const lines = [line(["", ...columns.map((target) => COLUMN_TITLES[target]), "gateway − proxy"]), "─".repeat(widths.reduce((sum, width) => sum + width + 1, -1))];
  const section = (title: string, rows: Row[]) => {
    lines.push(title);
    for (const entry of rows) lines.push(line([entry.label, ...entry.values.map((value) => number(value, entry.decimals)), entry.difference]));
  };
  for (const result of results) {
    const rate = result.scenario.rate ?? settings.rate;
    section(`${result.scenario.name}: ${number(rate)} req/s, median of ${settings.rateRounds} × ${settings.rateSeconds} s`, [...rateRows(result, columns), ...errorRow("errors", result.atRate, columns)]);
    if (result.saturated) {
      section(`${result.scenario.name}: saturation, ${settings.connections} connections, median of ${settings.saturationRounds} × ${settings.saturationSeconds} s`, [
        ...saturationRows(result.scenario, result.saturated, columns),
        ...errorRow("errors", result.saturated, columns),
      ]);
    }
  }
  return lines.join("\n");
}

/** What governance (a virtual key's budget, rate limits and routing rule) adds to a plain chat request, at the fixed rate. */
export function governanceCost(results: ScenarioResult[]): string | undefined {
  const byName = (name: string) => results.find((result) => result.scenario.name === name)?.atRate.gateway;
  const [plain, governed] = [byName("chat"), byName("chat governed")];
  if (!plain || !governed) return undefined;
  const p50 = governed.latency.p50 - plain.latency.p50;
  const cpu = governed.serverCpuMicrosPerRequest - plain.serverCpuMicrosPerRequest;
  return `governance cost ("chat governed" − "chat", gateway at the fixed rate): p50 ${signed(p50)} µs, server CPU per request ${signed(cpu)} µs`;
}

/** What the pattern checks of a guardrail policy add on a 4 KB prompt: "guardrails" − "guardrails none", gateway at the fixed rate. */
export function guardrailCost(results: ScenarioResult[]): string | undefined {
  const byName = (name: string) => results.find((result) => result.scenario.name === name)?.atRate.gateway;
  const [plain, guarded] = [byName("guardrails none"), byName("guardrails")];
  if (!plain || !guarded) return undefined;
  const p50 = guarded.latency.p50 - plain.latency.p50;
  const cpu = guarded.serverCpuMicrosPerRequest - plain.serverCpuMicrosPerRequest;
  return `guardrail cost ("guardrails" − "guardrails none", 4 KB prompt, gateway at the fixed rate): p50 ${signed(p50)} µs (target ≤ 50 µs), server CPU per request ${signed(cpu)} µs`;
}

export interface Verdict {
  /** undefined: a figure the issue asks to report, with no target to pass. */
  pass: boolean | undefined;
  text: string;
}

function scenarioVerdicts({ scenario, atRate, saturated, logBytesPerRequest }: ScenarioResult): Verdict[] {
  const rate = `at ${number(atRate.gateway.throughput)} req/s`;
  const addedP50 = atRate.gateway.latency.p50 - atRate.proxy.latency.p50;
  const addedP99 = atRate.gateway.latency.p99 - atRate.proxy.latency.p99;
  const addedP999 = atRate.gateway.latency.p999 - atRate.proxy.latency.p999;
  const cpuAtRate = atRate.gateway.serverCpuMicrosPerRequest / atRate.proxy.serverCpuMicrosPerRequest;
  if (scenario.saturation === false) {
    return [
      {
        pass: undefined,
        text: `${scenario.name}: gateway adds ${signed(addedP50)} µs p50, ${signed(addedP99)} µs p99, ${signed(addedP999)} µs p99.9 over the bare proxy ${rate}; CPU a request ${number(atRate.gateway.serverCpuMicrosPerRequest)} µs (bare proxy ${number(atRate.proxy.serverCpuMicrosPerRequest)}, ${number(cpuAtRate, 1)}×); log ${number(logBytesPerRequest / 1024, 1)} KB a request`,
      },
    ];
  }
  const checks: Verdict[] = [{ pass: addedP50 <= LIMITS.addedP50Micros, text: `${scenario.name}: gateway adds ${signed(addedP50)} µs p50 over the bare proxy ${rate} (target ≤ ${LIMITS.addedP50Micros} µs)` }];
  const allocated = kilobytesOf(atRate.gateway);
  if (scenario.name === "chat" && allocated !== undefined) {
    checks.push({
      pass: allocated <= LIMITS.chatAllocatedKB,
      text: `chat: the gateway allocates ${number(allocated, 1)} KB a request on its main thread ${rate} (target ≤ ${LIMITS.chatAllocatedKB} KB; bare proxy ${number(kilobytesOf(atRate.proxy), 1)} KB)`,
    });
  }
  if (scenario.stream && allocated !== undefined) {
    checks.push({ pass: undefined, text: `${scenario.name}: the gateway allocates ${number(allocated, 1)} KB a stream on its main thread ${rate} (no target; bare proxy ${number(kilobytesOf(atRate.proxy), 1)} KB)` });
  }
  if (!TAIL_SCENARIOS.includes(scenario.name)) return checks;
  checks.push({
    pass: addedP99 <= LIMITS.addedP99Micros,
    text: `${scenario.name}: gateway adds ${signed(addedP99)} µs p99 over the bare proxy ${rate}, request logs on (target ≤ ${LIMITS.addedP99Micros} µs); p99.9 ${signed(addedP999)} µs`,
  });
  if (saturated) {
    const share = saturated.gateway.serverCpuMicrosPerRequest / saturated.proxy.serverCpuMicrosPerRequest;
    checks.push({
      pass: share <= LIMITS.cpuShareOfProxy,
      text: `${scenario.name}: gateway CPU a request at saturation ${number(saturated.gateway.serverCpuMicrosPerRequest)} µs, ${number(share, 2)}× the bare proxy's ${number(saturated.proxy.serverCpuMicrosPerRequest)} µs (target ≤ ${LIMITS.cpuShareOfProxy}×; ${number(cpuAtRate, 2)}× at the fixed rate)`,
    });
  }
  return checks;
}

function shapeVerdicts({ streams, slow }: ShapeResults): Verdict[] {
  const checks: Verdict[] = [];
  if (streams) {
    const { proxy, gateway, asked } = streams;
    const open = `${number(gateway.opened)} of ${number(asked)} streams open at once`;
    if (gateway.opened < asked) checks.push({ pass: false, text: `many streams: the machine held ${open} (the bare proxy ${number(proxy.opened)})` });
    checks.push({
      pass: gateway.rssKBPerStream <= LIMITS.rssPerStreamKB,
      text: `many streams: gateway RSS grows ${number(gateway.rssKBPerStream, 1)} KB an open stream, ${open} (target ≤ ${LIMITS.rssPerStreamKB} KB; bare proxy ${number(proxy.rssKBPerStream, 1)} KB)`,
    });
    const added = gateway.gapMs.p99 - proxy.gapMs.p99;
    checks.push({
      pass: added <= LIMITS.addedChunkDelayP99Ms,
      text: `many streams: p99 inter-chunk delay ${number(gateway.gapMs.p99, 1)} ms through the gateway, ${number(proxy.gapMs.p99, 1)} ms through the bare proxy: ${signed(added, 1)} ms added (target ≤ ${LIMITS.addedChunkDelayP99Ms} ms; tokens sent every ${streams.intervalMs} ms)`,
    });
    checks.push({ pass: gateway.dropped === 0, text: `many streams: ${number(gateway.dropped)} of ${number(gateway.opened)} streams dropped by the gateway (target 0; bare proxy ${number(proxy.dropped)})` });
  }
  if (slow) {
    for (const route of slow.routes) {
      checks.push({
        pass: route.latencyMs.p99 < LIMITS.controlRouteP99Ms,
        text: `slow upstream: gateway ${route.name} answers in ${number(route.latencyMs.p99, 1)} ms p99 (p50 ${number(route.latencyMs.p50, 1)} ms) with ${number(slow.inFlight)} requests in flight to an upstream answering after ${number(slow.upstreamMs / 1000)} s (target < ${LIMITS.controlRouteP99Ms} ms)`,
      });
    }
    checks.push({ pass: slow.gatewayErrors === 0, text: `slow upstream: ${number(slow.gatewayCompleted)} slow requests answered by the gateway, ${number(slow.gatewayErrors)} not (bare proxy ${number(slow.proxyCompleted)} and ${number(slow.proxyErrors)})` });
  }
  return checks;
}

/** The targets, one verdict each. */
export function verdicts(results: ScenarioResult[], shapes: ShapeResults, gatewayRssMB: number): Verdict[] {
  const checks = results.flatMap(scenarioVerdicts);
  checks.push(...shapeVerdicts(shapes));
  checks.push({ pass: gatewayRssMB < LIMITS.rssMB, text: `gateway RSS after the scenarios ${number(gatewayRssMB, 1)} MB (target < ${LIMITS.rssMB} MB)` });
  const errors = results.reduce((sum, { atRate, saturated }) => sum + atRate.gateway.errors + atRate.proxy.errors + (saturated ? saturated.gateway.errors + saturated.proxy.errors : 0), 0);
  checks.push({ pass: errors === 0, text: `every measured request to the bare proxy and the gateway answered 2xx (${number(errors)} did not)` });
  return checks;
}

/** The traffic shapes' figures: the mock directly (streams only), the bare proxy and the gateway. */
export function renderShapes({ streams, slow }: ShapeResults): string | undefined {
  if (!streams && !slow) return undefined;
  const lines: string[] = [];
  const line = (label: string, ...cells: string[]) => lines.push(`${label.padEnd(40)} ${cells.map((cell) => cell.padStart(13)).join(" ")}`);
  line("", "direct", "bare proxy", "gateway");
  lines.push("─".repeat(82));
  if (streams) {
    const runs = [streams.direct, streams.proxy, streams.gateway];
    const each = (pick: (run: StreamRun) => string) => runs.map(pick);
    lines.push(`many streams: ${number(streams.asked)} at once, a token every ${streams.intervalMs} ms for ${number((streams.intervalMs * streams.tokens) / 1000)} s`);
    line("  most open at once", ...each((run) => number(run.opened)));
    line("  completed / dropped", ...each((run) => `${number(run.completed)} / ${number(run.dropped)}`));
    line("  first event p50 / p99 (ms)", ...each((run) => `${number(run.firstEventMs.p50)} / ${number(run.firstEventMs.p99)}`));
    line("  inter-chunk delay p50 (ms)", ...each((run) => number(run.gapMs.p50, 1)));
    line("  inter-chunk delay p99 (ms)", ...each((run) => number(run.gapMs.p99, 1)));
    line("  inter-chunk delay p99.9 (ms)", ...each((run) => number(run.gapMs.p999, 1)));
    line("  RSS before → peak (MB)", "", ...[streams.proxy, streams.gateway].map((run) => `${number(run.rssBeforeMB)} → ${number(run.rssPeakMB)}`));
    line("  RSS growth an open stream (KB)", "", ...[streams.proxy, streams.gateway].map((run) => number(run.rssKBPerStream, 1)));
  }
  if (slow) {
    lines.push(`slow upstream: ${number(slow.inFlight)} requests in flight, answered after ${number(slow.upstreamMs / 1000)} s`);
    line("  slow requests answered / failed", "", `${number(slow.proxyCompleted)} / ${number(slow.proxyErrors)}`, `${number(slow.gatewayCompleted)} / ${number(slow.gatewayErrors)}`);
    const [health, ...others] = slow.routes;
    line("  GET /health p50 / p99 (ms)", "", `${number(slow.proxyHealthMs.p50, 1)} / ${number(slow.proxyHealthMs.p99, 1)}`, `${number(health!.latencyMs.p50, 1)} / ${number(health!.latencyMs.p99, 1)}`);
    for (const route of others) line(`  ${route.name.replace("/api/governance/", "/api/…/")} p50 / p99 (ms)`, "", "—", `${number(route.latencyMs.p50, 1)} / ${number(route.latencyMs.p99, 1)}`);
  }
  return lines.join("\n");
}
