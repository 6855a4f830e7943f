import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { createGateway } from "./app";
import { ConfigError, loadConfig } from "./config/load";
import { CommandLineFlags } from "./config/startup-options";

const DEFAULT_DATABASE = "file:./data/gateway.db";
const DEFAULT_SHUTDOWN_GRACE_SECONDS = 8;
const CONFIG_ERROR_EXIT_CODE = 2;

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
  const gateway = await createGateway({ config, databaseUrl });
  const allowOpenInference = config.allow_open_inference === true || process.env.GATEWAY_ALLOW_OPEN_INFERENCE === "true";
  let server: ReturnType<typeof gateway.listen>;
  try {
    server = gateway.listen(port, host, { allowOpenInference });
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  console.log(`gateway listening on http://${server.hostname}:${server.port} (database ${databaseUrl.replace(/\?.*$/, "")})`);
  console.log(`dashboard at http://${server.hostname}:${server.port}/`);
  const delaySeconds = config.server?.shutdown_delay_seconds ?? 0;
  const graceSeconds = config.server?.shutdown_grace_seconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
  // The first signal drains; a second one cuts the delay and the drain short.
  const cut = new AbortController();
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return cut.abort();
      stopping = true;
      gateway.markDraining();
      console.log(`gateway stopping: /health/ready answers 503${delaySeconds > 0 ? `, new connections are still taken for ${delaySeconds} s` : ""}; then no new connections, and the requests under way have ${graceSeconds} s to finish`);
      waitUnlessCut(delaySeconds * 1000, cut.signal)
        .then(() => gateway.drain(graceSeconds * 1000, cut.signal))
        .then(() => gateway.stop())
        .then(() => process.exit(0));
    });
  }
}

/** The database's variables that are set, as config.json's `database` fields they win over. */
function databaseVariables() {
  const { GATEWAY_DB_AUTH_TOKEN, GATEWAY_DB_SYNC_URL, GATEWAY_DB_SYNC_INTERVAL } = process.env;
  const interval = GATEWAY_DB_SYNC_INTERVAL ? Number(GATEWAY_DB_SYNC_INTERVAL) : undefined;
  if (interval !== undefined && !(interval > 0)) throw new ConfigError(`GATEWAY_DB_SYNC_INTERVAL must be a number of seconds above 0, not '${GATEWAY_DB_SYNC_INTERVAL}'`);
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
