import type { Measured } from "./run-load";
import type { Scenario } from "./scenarios";

export const TARGETS = ["direct", "proxy", "gateway"] as const;
export type TargetName = (typeof TARGETS)[number];
export type ByTarget = Record<TargetName, Measured>;

export interface ScenarioResult {
  scenario: Scenario;
  atRate: ByTarget;
  saturated: ByTarget;
}

export const LIMITS = { addedP50Micros: 100, throughputShareOfProxy: 0.7, rssMB: 150 };

type Row = { label: string; values: (number | undefined)[]; difference: string };

const number = (value: number | undefined, decimals = 0) =>
  value === undefined || Number.isNaN(value) ? "—" : value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const signed = (value: number) => `${value >= 0 ? "+" : "−"}${number(Math.abs(value))}`;

/** A row of one figure per target, its last column the gateway's minus the bare proxy's. */
function row(label: string, runs: ByTarget, pick: (run: Measured) => number): Row {
  const [direct, proxy, gateway] = TARGETS.map((target) => pick(runs[target]));
  return { label, values: [direct, proxy, gateway], difference: signed(gateway! - proxy!) };
}

function addedOverDirect(label: string, runs: ByTarget, pick: (run: Measured) => number): Row {
  const direct = pick(runs.direct);
  const [proxy, gateway] = [pick(runs.proxy) - direct, pick(runs.gateway) - direct];
  return { label, values: [undefined, proxy, gateway], difference: signed(gateway - proxy) };
}

function rateRows({ scenario, atRate }: ScenarioResult): Row[] {
  return [
    row("  p50 (µs)", atRate, (run) => run.latency.p50),
    row("  p99 (µs)", atRate, (run) => run.latency.p99),
    row("  mean (µs)", atRate, (run) => run.latency.mean),
    ...(scenario.stream ? [row("  first byte p50 (µs)", atRate, (run) => run.firstByte.p50), row("  first byte p99 (µs)", atRate, (run) => run.firstByte.p99)] : []),
    addedOverDirect("  p50 added over direct (µs)", atRate, (run) => run.latency.p50),
    addedOverDirect("  mean added over direct (µs)", atRate, (run) => run.latency.mean),
    row("  achieved rate (req/s)", atRate, (run) => run.throughput),
    row("  server CPU per request (µs)", atRate, (run) => run.serverCpuMicrosPerRequest),
  ];
}

function saturationRows({ scenario, saturated }: ScenarioResult): Row[] {
  const throughput = row("  throughput (req/s)", saturated, (run) => run.throughput);
  throughput.difference += ` (${number((saturated.gateway.throughput / saturated.proxy.throughput) * 100)}%)`;
  return [
    throughput,
    row("  p50 (µs)", saturated, (run) => run.latency.p50),
    row("  p99 (µs)", saturated, (run) => run.latency.p99),
    ...(scenario.stream ? [row("  first byte p50 (µs)", saturated, (run) => run.firstByte.p50)] : []),
    row("  server CPU per request (µs)", saturated, (run) => run.serverCpuMicrosPerRequest),
  ];
}

const errorRow = (label: string, runs: ByTarget): Row[] =>
  TARGETS.some((target) => runs[target].errors > 0) ? [row(`  ${label} (non-2xx or dropped)`, runs, (run) => run.errors)] : [];

export interface TableSettings {
  rate: number;
  rateSeconds: number;
  rateRounds: number;
  connections: number;
  saturationSeconds: number;
  saturationRounds: number;
}

/** The one table: every scenario's fixed-rate and saturation figures, side by side. */
export function renderTable(results: ScenarioResult[], settings: TableSettings): string {
  const widths = [34, 11, 12, 11, 18];
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!))).join(" ");
  const lines = [line(["", "direct", "bare proxy", "gateway", "gateway − proxy"]), "─".repeat(widths.reduce((sum, width) => sum + width + 1, -1))];
  const section = (title: string, rows: Row[]) => {
    lines.push(title);
    for (const entry of rows) lines.push(line([entry.label, ...entry.values.map((value) => number(value)), entry.difference]));
  };
  for (const result of results) {
    section(`${result.scenario.name}: ${number(settings.rate)} req/s, median of ${settings.rateRounds} × ${settings.rateSeconds} s`, [...rateRows(result), ...errorRow("errors", result.atRate)]);
    section(`${result.scenario.name}: saturation, ${settings.connections} connections, median of ${settings.saturationRounds} × ${settings.saturationSeconds} s`, [...saturationRows(result), ...errorRow("errors", result.saturated)]);
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
  pass: boolean;
  text: string;
}

/** The targets, one verdict each. */
export function verdicts(results: ScenarioResult[], gatewayRssMB: number): Verdict[] {
  const checks: Verdict[] = [];
  for (const { scenario, atRate, saturated } of results) {
    const added = atRate.gateway.latency.p50 - atRate.proxy.latency.p50;
    checks.push({ pass: added <= LIMITS.addedP50Micros, text: `${scenario.name}: gateway adds ${signed(added)} µs p50 over the bare proxy at ${number(atRate.gateway.throughput)} req/s (target ≤ ${LIMITS.addedP50Micros} µs)` });
    const share = saturated.gateway.throughput / saturated.proxy.throughput;
    checks.push({ pass: share >= LIMITS.throughputShareOfProxy, text: `${scenario.name}: gateway saturation throughput is ${number(share * 100)}% of the bare proxy's (target ≥ ${LIMITS.throughputShareOfProxy * 100}%)` });
  }
  checks.push({ pass: gatewayRssMB < LIMITS.rssMB, text: `gateway RSS after the run ${number(gatewayRssMB, 1)} MB (target < ${LIMITS.rssMB} MB)` });
  const errors = results.reduce((sum, { atRate, saturated }) => sum + TARGETS.reduce((inner, target) => inner + atRate[target].errors + saturated[target].errors, 0), 0);
  checks.push({ pass: errors === 0, text: `every measured request answered 2xx (${number(errors)} did not)` });
  return checks;
}
