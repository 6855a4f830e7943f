import { expect } from "bun:test";

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedMetrics {
  types: Map<string, string>;
  samples: ParsedSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`malformed labels: {${text}}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, escaped: string) => (escaped === "n" ? "\n" : escaped));
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  const value = Number(text);
  if (text !== "NaN" && Number.isNaN(value)) throw new Error(`malformed value: ${text}`);
  return value;
}

/** A strict reader of the Prometheus text format: any line it does not understand fails the test. */
export function parsePrometheus(text: string): ParsedMetrics {
  const types = new Map<string, string>();
  const samples: ParsedSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`malformed line: ${line}`);
    samples.push({ name: sample[1]!, labels: parseLabels(sample[2] ?? ""), value: parseValue(sample[3]!) });
  }
  return { types, samples };
}

/** The value of the one sample with this name whose labels include `labels`. */
export function valueOf(metrics: ParsedMetrics, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = metrics.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  expect(matching.length).toBeLessThanOrEqual(1);
  return matching[0]?.value;
}
