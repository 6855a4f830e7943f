import { readdirSync, readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { LISTENING_LINE } from "./child-lifetime";

export interface BenchServer {
  name: string;
  pid: number;
  url: string;
  port: number;
}

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;
const running = new Set<Subprocess<"pipe", "pipe", "pipe">>();

/** Spawns a child that stopAll() will stop; it leaves the set once it exits. */
export function spawnTracked(command: string[], options: { cwd?: string; env?: Record<string, string | undefined>; timeout?: number } = {}) {
  const child = Bun.spawn(command, { ...options, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  running.add(child);
  void child.exited.then(() => running.delete(child));
  return child;
}

/** Keeps reading a child's output so a chatty child never blocks on a full pipe. */
function drain(stream: ReadableStream<Uint8Array>, onText: (text: string) => void): void {
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
  })().catch(() => {});
}

/** Starts a server process and waits for the line that names its port; `onOutput` sees everything it prints, then and later. */
export async function startServer(name: string, command: string[], options: { cwd?: string; env?: Record<string, string | undefined>; onOutput?: (text: string) => void } = {}): Promise<BenchServer> {
  const { onOutput, ...spawnOptions } = options;
  const child = spawnTracked(command, spawnOptions);
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output}`)), STARTUP_TIMEOUT_MS);
    const onText = (text: string) => {
      onOutput?.(text);
      output = (output + text).slice(-4000);
      const match = LISTENING_LINE.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    drain(child.stdout, onText);
    drain(child.stderr, onText);
    void child.exited.then((code) => reject(new Error(`${name} exited with code ${code} before listening:\n${output}`)));
  });
  return { name, pid: child.pid, port, url: `http://127.0.0.1:${port}` };
}

/** Stops every process this bench started: SIGTERM, then SIGKILL after a grace period. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      running.delete(child);
      child.kill("SIGTERM");
      const stopped = await Promise.race([child.exited.then(() => true), Bun.sleep(STOP_GRACE_MS).then(() => false)]);
      if (!stopped) child.kill("SIGKILL");
    }),
  );
}

/** Resident memory of a process from /proc/<pid>/status, in MB: now and its peak. */
export function memoryOf(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMB: kilobytes("VmRSS") / 1024, peakMB: kilobytes("VmHWM") / 1024 };
}

/** USER_HZ: the unit of /proc times, 100 on every Linux architecture this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) in seconds from a /proc stat line: of a process, or of one of its threads. */
function cpuSecondsIn(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number {
  return cpuSecondsIn(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** CPU time the process's JIT compiler threads (JavaScriptCore's, named "JITWorker") have used so far, in seconds. */
export function jitCpuSecondsOf(pid: number): number {
  let seconds = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
      if (stat.includes("(JITWorker)")) seconds += cpuSecondsIn(stat);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return seconds;
}

/**
 * Waits until a process has gone quiet (under 5% of a core over 100 ms), at most `limitMs`: a
 * server still busy with the previous run's aftermath (a gateway writing queued request logs,
 * a collection) would otherwise charge that work to the next run.
 */
export async function settled(pid: number, limitMs = 3_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let before = treeCpuSecondsOf(pid);
  while (Date.now() < deadline) {
    await Bun.sleep(100);
    const now = treeCpuSecondsOf(pid);
    if (now - before < 0.005) return;
    before = now;
  }
}

/** A process and every process under it (nginx's workers under its master), by reading /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

const sumOver = (pid: number, read: (one: number) => number) =>
  processTree(pid).reduce((sum, one) => {
    try {
      return sum + read(one);
    } catch {
      return sum;
    }
  }, 0);

/** CPU seconds of a process and everything under it. */
export const treeCpuSecondsOf = (pid: number): number => sumOver(pid, cpuSecondsOf);

/** Resident memory of a process and everything under it, in MB. */
export const treeRssMBOf = (pid: number): number => sumOver(pid, (one) => memoryOf(one).rssMB);

/** A port nothing listens on right now, for a server that must be told its port. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** Starts a server that prints no line naming its port (nginx, Node programs) and waits until `port` takes connections. */
export async function startOnPort(name: string, command: string[], port: number, options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<BenchServer> {
  const child = spawnTracked(command, options);
  let output = "";
  drain(child.stdout, (text) => (output = (output + text).slice(-4000)));
  drain(child.stderr, (text) => (output = (output + text).slice(-4000)));
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before listening:\n${output}`);
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (answered) return { name, pid: child.pid, port, url: `http://127.0.0.1:${port}` };
    await Bun.sleep(100);
  }
  throw new Error(`${name} did not listen on port ${port} within ${STARTUP_TIMEOUT_MS} ms:\n${output}`);
}
