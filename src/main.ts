import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { defaultNodeId } from "../actors/runtime/node-identity";
import { createGateway, type Gateway } from "./app";
import { ConfigError, loadConfig, secondsVariable } from "./config/load";
import { CommandLineFlags } from "./config/startup-options";
import { CounterHost } from "./server/counter-host";
import { connectToFirstProcess } from "./server/first-process";
import { ensurePortFree, portTakenError } from "./server/port-check";
import { Supervisor } from "./server/supervisor";

const DEFAULT_DATABASE = "file:./data/gateway.db";
const DEFAULT_SHUTDOWN_GRACE_SECONDS = 8;
const CONFIG_ERROR_EXIT_CODE = 2;
/** As `server.workers` allows. */
const MOST_WORKERS = 256;

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: Object.fromEntries(Object.keys(CommandLineFlags.properties).map((flag) => [flag, { type: "string" as const }])),
}) as { values: Partial<Record<keyof typeof CommandLineFlags.properties, string>> };

async function main() {
  const config = await loadConfig(args.config ?? process.env.GATEWAY_CONFIG);
  const databaseUrl = process.env.GATEWAY_DB_URL ?? config.database?.url ?? DEFAULT_DATABASE;
  config.database = { ...config.database, ...databaseVariables() };
  if (databaseUrl === DEFAULT_DATABASE) mkdirSync("./data", { recursive: true });
  const port = Number(args.port ?? process.env.PORT ?? config.server?.port ?? 8080);
  const host = args.host ?? process.env.HOST ?? config.server?.host ?? "127.0.0.1";
  const workers = workerCount(args.workers, config.server?.workers);
  // A worker of `server.workers`, started by the first process: it stops when that one is gone.
  let firstProcessLost: () => void = () => process.exit(1);
  const firstProcess = process.env.GATEWAY_WORKER ? connectToFirstProcess(() => firstProcessLost()) : undefined;
  if (!firstProcess) ensurePortFree(port, host, workers > 1);
  const gateway = await createGateway({ config, databaseUrl, limitCounters: firstProcess?.counters, sharedSessions: workers > 1 || firstProcess !== undefined });
  const allowOpenInference = config.allow_open_inference === true || process.env.GATEWAY_ALLOW_OPEN_INFERENCE === "true";
  let server: ReturnType<typeof gateway.listen>;
  try {
    server = gateway.listen(port, host, { allowOpenInference, reusePort: firstProcess !== undefined || workers > 1 });
  } catch (error) {
    await gateway.stop();
    throw portTakenError(error, port, host) ?? error;
  }
  const supervisor = !firstProcess && workers > 1 ? startWorkers(gateway, workers - 1, server.port!, host, databaseUrl) : undefined;
  const delaySeconds = config.server?.shutdown_delay_seconds ?? 0;
  const graceSeconds = config.server?.shutdown_grace_seconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
  // The first signal drains; a second one cuts the delay and the drain short.
  const cut = new AbortController();
  let stopping = false;
  function stop() {
    if (stopping) {
      void supervisor?.stop();
      return cut.abort();
    }
    stopping = true;
    gateway.markDraining();
    // The workers drain alongside; the counters they charge stay here until the last has exited.
    const workersExited = supervisor?.stop();
    if (!firstProcess) console.log(`gateway stopping: /health/ready answers 503${delaySeconds > 0 ? `, new connections are still taken for ${delaySeconds} s` : ""}; then no new connections, and the requests under way have ${graceSeconds} s to finish`);
    waitUnlessCut(delaySeconds * 1000, cut.signal)
      .then(() => gateway.drain(graceSeconds * 1000, cut.signal))
      .then(() => workersExited)
      .then(() => gateway.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`gateway stop failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  }
  process.on("SIGTERM", stop);
  firstProcessLost = stop;
  // Ctrl-C reaches every process of the group: the first passes it on to its workers as SIGTERM.
  process.on("SIGINT", firstProcess ? () => {} : stop);
  if (firstProcess) return firstProcess.ready();
  await supervisor?.start();
  const processes = workers > 1 ? ` (${workers} processes)` : "";
  console.log(`gateway listening on http://${server.hostname}:${server.port} (database ${databaseUrl.replace(/\?.*$/, "")})${processes}`);
  console.log(`dashboard at http://${server.hostname}:${server.port}/`);
}

/** `--workers` wins over `server.workers`; one process by default. */
function workerCount(flag: string | undefined, configured: number | undefined): number {
  if (flag === undefined) return configured ?? 1;
  if (!/^[1-9][0-9]*$/.test(flag) || Number(flag) > MOST_WORKERS) throw new ConfigError(`--workers must be a whole number from 1 to ${MOST_WORKERS}, not '${flag}'`);
  return Number(flag);
}

/** Workers 1..count, each this same command listening on the port this process took, under a node id of its own. */
function startWorkers(gateway: Gateway, count: number, port: number, host: string, databaseUrl: string): Supervisor {
  const counters = gateway.keptCounters;
  if (!counters) throw new Error("the first process keeps the counters its workers share");
  const nodeId = defaultNodeId(process.env, databaseUrl);
  return new Supervisor({
    count,
    command: [process.execPath, Bun.argv[1]!, ...Bun.argv.slice(2), "--port", String(port), "--host", host],
    env: (index) => ({ ...process.env, GATEWAY_WORKER: String(index), GATEWAY_NODE_ID: `${nodeId}-${index}` }),
    host: new CounterHost(counters),
  });
}

/** The database's variables that are set, as config.json's `database` fields they win over. */
function databaseVariables() {
  const { GATEWAY_DB_AUTH_TOKEN, GATEWAY_DB_SYNC_URL, GATEWAY_DB_SYNC_INTERVAL } = process.env;
  const interval = secondsVariable("GATEWAY_DB_SYNC_INTERVAL", GATEWAY_DB_SYNC_INTERVAL);
  return {
    ...(GATEWAY_DB_AUTH_TOKEN && { auth_token: GATEWAY_DB_AUTH_TOKEN }),
    ...(GATEWAY_DB_SYNC_URL && { sync_url: GATEWAY_DB_SYNC_URL }),
    ...(interval !== undefined && { sync_interval_seconds: interval }),
  };
}

/** Resolves after `ms`, or at once when `cut` aborts. */
function waitUnlessCut(ms: number, cut: AbortSignal): Promise<void> {
  if (ms <= 0 || cut.aborted) return Promise.resolve();
  const { promise, resolve } = Promise.withResolvers<void>();
  const timer = setTimeout(resolve, ms);
  cut.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  return promise;
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(CONFIG_ERROR_EXIT_CODE);
  }
  console.error(error);
  process.exit(1);
});
