import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { createGateway } from "./app";
import { ConfigError, loadConfig } from "./config/load";

const DEFAULT_DATABASE = "file:./data/gateway.db";
const DEFAULT_SHUTDOWN_GRACE_SECONDS = 8;

const { values: args } = parseArgs({
  args: Bun.argv.slice(2),
  options: { port: { type: "string" }, host: { type: "string" }, config: { type: "string" } },
});

async function main() {
  const config = await loadConfig(args.config ?? process.env.GATEWAY_CONFIG);
  const databaseUrl = process.env.GATEWAY_DB_URL ?? config.database?.url ?? DEFAULT_DATABASE;
  if (databaseUrl === DEFAULT_DATABASE) mkdirSync("./data", { recursive: true });
  const port = Number(args.port ?? process.env.PORT ?? config.server?.port ?? 8080);
  const host = args.host ?? process.env.HOST ?? config.server?.host ?? "127.0.0.1";
  const gateway = await createGateway({ config, databaseUrl });
  const server = gateway.listen(port, host);
  console.log(`gateway listening on http://${server.hostname}:${server.port} (database ${databaseUrl.replace(/\?.*$/, "")})`);
  console.log(`dashboard at http://${server.hostname}:${server.port}/`);
  const graceSeconds = config.server?.shutdown_grace_seconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
  // The first signal drains; a second one cuts the drain short.
  const cut = new AbortController();
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return cut.abort();
      stopping = true;
      console.log(`gateway stopping: no new connections; the requests under way have ${graceSeconds} s to finish`);
      gateway
        .drain(graceSeconds * 1000, cut.signal)
        .then(() => gateway.stop())
        .then(() => process.exit(0));
    });
  }
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
