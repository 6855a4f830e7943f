import { ConfigError } from "../config/load";

/**
 * Fails with a one-line ConfigError (exit code 2) when the port is taken, before the gateway
 * prints or writes anything: a probe listens on it and stops at once.
 */
export function ensurePortFree(port: number, host: string, reusePort: boolean): void {
  if (port === 0) return;
  try {
    Bun.serve({ port, hostname: host, reusePort, fetch: () => new Response(null, { status: 503 }) }).stop(true);
  } catch (error) {
    throw portTakenError(error, port, host) ?? error;
  }
}

/** The ConfigError for a listen that failed because the port is taken; undefined for any other failure. */
export function portTakenError(error: unknown, port: number, host: string): ConfigError | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "EADDRINUSE") return undefined;
  return new ConfigError(`port ${port} on ${host} is already in use: stop what listens there, or choose another port with --port, the PORT variable or "server": { "port": ... } in config.json`);
}
