/**
 * The bench's load generator, run as its own process so it never shares an event loop with a
 * server under test: the LoadPlan JSON on its stdin (a 150 KB body is too long for an argument), it prints one LoadResult JSON line.
 * "rate" mode is open-loop: a pacer process ticks at the fixed rate and each tick sends one
 * request on an idle connection (or queues it, its latency then counting from its tick).
 * "saturate" mode keeps every connection busy, back to back, for the duration.
 */
import { type Exchange, HttpConnection, requestBytes } from "./http-connection";
import { summarize, type Summary, SampleLog } from "./samples";

export interface LoadPlan {
  mode: "rate" | "saturate";
  port: number;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  connections: number;
  durationMs: number;
  /** Requests per second, for "rate". */
  rate?: number;
}

export interface LoadResult {
  completed: number;
  errors: number;
  elapsedSeconds: number;
  throughput: number;
  /** Full response time, µs. */
  latency: Summary;
  /** Time to the first body byte, µs. */
  firstByte: Summary;
}

interface Run {
  plan: LoadPlan;
  request: Uint8Array;
  latency: SampleLog;
  firstByte: SampleLog;
  errors: number;
  /** When each connection's current request became due. */
  dueAt: Map<HttpConnection, number>;
  outstanding: number;
  drained?: () => void;
}

function record(run: Run, connection: HttpConnection, exchange: Exchange): void {
  const due = run.dueAt.get(connection)!;
  run.outstanding--;
  if (exchange.status < 200 || exchange.status > 299) run.errors++;
  else {
    run.latency.add((exchange.doneAt - due) / 1000);
    run.firstByte.add((exchange.firstByteAt - due) / 1000);
  }
}

function send(run: Run, connection: HttpConnection, due: number): void {
  run.dueAt.set(connection, due);
  run.outstanding++;
  connection.send(run.request);
}

async function openAll(run: Run, onIdle: (connection: HttpConnection) => void): Promise<HttpConnection[]> {
  const onExchange = (connection: HttpConnection, exchange: Exchange) => {
    record(run, connection, exchange);
    if (!connection.closed) onIdle(connection);
    if (run.outstanding === 0) run.drained?.();
  };
  return Promise.all(Array.from({ length: run.plan.connections }, () => HttpConnection.open(run.plan.port, onExchange)));
}

const allAnswered = (run: Run) => new Promise<void>((resolve) => (run.outstanding === 0 ? resolve() : (run.drained = resolve)));

async function runAtRate(run: Run): Promise<number> {
  const rate = run.plan.rate!;
  const ticks = Math.round((rate * run.plan.durationMs) / 1000);
  const idle: HttpConnection[] = [];
  const backlog: number[] = [];
  const onIdle = (connection: HttpConnection) => {
    const queuedDue = backlog.shift();
    if (queuedDue === undefined) idle.push(connection);
    else send(run, connection, queuedDue);
  };
  idle.push(...(await openAll(run, onIdle)));
  const pacer = Bun.spawn([process.execPath, `${import.meta.dir}/pacer.ts`, String(1e6 / rate), String(ticks)], { stdout: "pipe", stderr: "inherit" });
  const started = Bun.nanoseconds();
  for await (const tickBytes of pacer.stdout) {
    const now = Bun.nanoseconds();
    for (let tick = 0; tick < tickBytes.length; tick++) {
      const connection = idle.pop();
      if (connection) send(run, connection, now);
      else backlog.push(now);
    }
  }
  const elapsed = (Bun.nanoseconds() - started) / 1e9;
  await allAnswered(run);
  for (const connection of idle) connection.close();
  return elapsed;
}

async function runSaturated(run: Run): Promise<number> {
  let deadline = Number.POSITIVE_INFINITY;
  const onIdle = (connection: HttpConnection) => {
    const now = Bun.nanoseconds();
    if (now < deadline) send(run, connection, now);
    else connection.close();
  };
  const connections = await openAll(run, onIdle);
  const started = Bun.nanoseconds();
  deadline = started + run.plan.durationMs * 1e6;
  for (const connection of connections) send(run, connection, started);
  await allAnswered(run);
  return (Bun.nanoseconds() - started) / 1e9;
}

async function main(plan: LoadPlan): Promise<LoadResult> {
  const run: Run = {
    plan,
    request: requestBytes(plan.port, plan.path, plan.body, plan.headers),
    latency: new SampleLog(),
    firstByte: new SampleLog(),
    errors: 0,
    dueAt: new Map(),
    outstanding: 0,
  };
  const elapsedSeconds = plan.mode === "rate" ? await runAtRate(run) : await runSaturated(run);
  return {
    completed: run.latency.size,
    errors: run.errors,
    elapsedSeconds,
    throughput: run.latency.size / elapsedSeconds,
    latency: summarize(run.latency),
    firstByte: summarize(run.firstByte),
  };
}

if (import.meta.main) {
  const result = await main(JSON.parse(await Bun.stdin.text()) as LoadPlan);
  console.log(JSON.stringify(result));
  process.exit(0);
}
