/** Reads `perf script -F comm,tid,ip,sym` output and says where the CPU went, per thread and per JS function. */

export interface Sample {
  thread: string;
  tid: number;
  /** Leaf first. */
  frames: string[];
}

const SAMPLE_HEADER = /^(\S.*?)\s+(\d+)\s*$/;
/** A frame of JIT-compiled JS at any tier; the name is empty for an anonymous function. */
const JS_FRAME = /^JSC-(?:FTL|DFG|Baseline|LLInt): ?(.*?)(#\w+)?$/;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  let current: Sample | undefined;
  for (const line of text.split("\n")) {
    const header = SAMPLE_HEADER.exec(line);
    if (header && !line.startsWith("\t") && !line.startsWith(" ")) {
      current = { thread: header[1]!, tid: Number(header[2]), frames: [] };
      samples.push(current);
    } else if (current && line.trim()) {
      current.frames.push(line.trim().replace(/^\S+\s+/, ""));
    }
  }
  return samples;
}

/** The JS functions on a sample's stack, innermost first, as `name#hash` (JSC's hash tells same-named functions apart). */
export function jsFunctions(frames: string[]): string[] {
  const functions: string[] = [];
  for (const frame of frames) {
    const match = JS_FRAME.exec(frame);
    if (match) functions.push(`${match[1] || "(anonymous)"}${match[2] ?? ""}`);
  }
  return functions;
}

export interface FunctionCost {
  name: string;
  /** Samples whose innermost JS function this is: its own code and the native code it called. */
  self: number;
  /** Samples with this function anywhere on the stack. */
  total: number;
}

export const NO_JS = "(no JS on the stack: event loop, sockets, HTTP parsing, GC)";

export function costByFunction(samples: Sample[]): FunctionCost[] {
  const costs = new Map<string, FunctionCost>();
  const costOf = (name: string) => costs.get(name) ?? costs.set(name, { name, self: 0, total: 0 }).get(name)!;
  for (const sample of samples) {
    const functions = jsFunctions(sample.frames);
    if (functions.length === 0) functions.push(NO_JS);
    costOf(functions[0]!).self++;
    for (const name of new Set(functions)) costOf(name).total++;
  }
  return [...costs.values()].sort((a, b) => b.self - a.self);
}

/** Sample counts by thread name (threads of one name, such as a pool's, together); the thread `mainTid` is named as the main one. */
export function samplesByThread(samples: Sample[], mainTid: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { thread, tid } of samples) {
    const name = tid === mainTid ? `${thread} (main thread)` : thread;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return new Map([...counts].sort((a, b) => b[1] - a[1]));
}

/** The JS call chains (innermost first, `depth` frames) under which a function named `name` ran, most sampled first. */
export function callersOf(samples: Sample[], name: string, depth = 6): [chain: string, count: number][] {
  const chains = new Map<string, number>();
  for (const sample of samples) {
    const functions = jsFunctions(sample.frames);
    const at = functions.findIndex((fn) => fn.startsWith(`${name}#`) || fn === name);
    if (at < 0) continue;
    const chain = functions.slice(at, at + depth).join(" < ");
    chains.set(chain, (chains.get(chain) ?? 0) + 1);
  }
  return [...chains].sort((a, b) => b[1] - a[1]);
}
