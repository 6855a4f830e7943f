import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/app";
import { resolveEnvReference } from "../../src/config/env-reference";
import type { GatewayConfig } from "../../src/config/schema";
import { openDatabase } from "../../src/db/client";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "./libsql-server";

export const SETUP_TOKEN = "test-setup-token";

export interface TestGateway {
  gateway: Gateway;
  url: string;
  databaseUrl: string;
  /** The files the database's data is in, wherever it lives: an embedded file and its log, or a libSQL server's. */
  databaseFiles(): string[];
  /** fetch against the gateway as the operator (management calls carry the operator's credentials). */
  admin(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Stops the server but keeps the database, as a crash would. */
  stop(): Promise<void>;
  /** Starts a new gateway on the same database, as after a restart. */
  restart(): Promise<TestGateway>;
  /** Stops the server and deletes the database. */
  close(): Promise<void>;
}

/**
 * When the config turns dashboard auth on, the operator is the admin account: base64 of
 * `username:password`, the legacy bearer form. Otherwise the setup token alone suffices.
 */
function adminCredentials(config: GatewayConfig): string | undefined {
  const auth = config.auth;
  if (!auth?.admin_username || !auth.admin_password || auth.enabled === false) return undefined;
  const password = resolveEnvReference(auth.admin_password);
  return Buffer.from(`${auth.admin_username}:${password}`).toString("base64");
}

/** What a test may put in place of the real thing: clocks and name resolution; kept across `restart()`. */
export type TestRuntime = Pick<GatewayOptions, "clock" | "resolveHost" | "actorClock" | "actorLease" | "actorMachines">;

/**
 * `GATEWAY_TEST_DATABASE=libsql-server` runs every test on a libSQL server of its own instead of
 * an embedded file: the whole suite in the deployment of several nodes.
 */
export const ON_LIBSQL_SERVER = process.env.GATEWAY_TEST_DATABASE === "libsql-server";

interface ExistingDatabase {
  databaseUrl?: string;
  dir?: string;
  runtime?: TestRuntime;
  /** The server the database is on, stopped when a gateway on it closes. */
  databaseServer?: LibsqlServer;
  /** Variables of this node's environment beside the test's own (GATEWAY_REGION, GATEWAY_NODE_ID). */
  env?: Record<string, string>;
}

/** Gateways not yet stopped, with the folders their files are in. */
const running = new Map<Gateway, string[]>();

/**
 * Makes `stop()` run once, however often it is called, and remembers the gateway until then: a
 * test that restarts over a gateway it never stopped (a crash in-process) leaves it running, and
 * deleting its folder under it would fail its background writes in some later test.
 */
function tracked(gateway: Gateway, folders: string[]): void {
  const stop = gateway.stop.bind(gateway);
  let stopped: Promise<void> | undefined;
  gateway.stop = () => {
    running.delete(gateway);
    stopped ??= stop();
    return stopped;
  };
  running.set(gateway, folders);
}

/** Stops every gateway whose files are in `folder`, before the folder goes. */
async function stopAllIn(folder: string): Promise<void> {
  const inFolder = [...running].filter(([, folders]) => folders.includes(folder)).map(([gateway]) => gateway);
  await Promise.all(inFolder.map((gateway) => gateway.stop()));
}

let migrated: Promise<string> | undefined;

/**
 * An embedded file with every migration applied, made once per run: a fresh database is a copy
 * of it, the file a first start would migrate an empty one into, without migrating it each time.
 */
function migratedFile(): Promise<string> {
  migrated ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-migrated-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "gateway.db");
    const database = await openDatabase(`file:${path}`);
    // Everything in the one file: the copy needs no write-ahead log beside it.
    await database.db.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    database.close();
    return path;
  })();
  return migrated;
}

/** Starts the gateway in-process on a random port with a fresh database (an embedded file unless told otherwise). */
export async function startGateway(config: GatewayConfig = {}, existing?: ExistingDatabase): Promise<TestGateway> {
  const dir = existing?.dir ?? mkdtempSync(join(tmpdir(), "gateway-test-"));
  const databaseServer = existing?.databaseServer ?? (!existing?.databaseUrl && ON_LIBSQL_SERVER ? await startLibsqlServer() : undefined);
  const databaseUrl = existing?.databaseUrl ?? databaseServer?.url ?? `file:${join(dir, "gateway.db")}`;
  if (!existing?.databaseUrl && !databaseServer) copyFileSync(await migratedFile(), join(dir, "gateway.db"));
  const runtime = existing?.runtime ?? {};
  const fullConfig: GatewayConfig = { setup_token: SETUP_TOKEN, ...config };
  const gateway = await createGateway({ config: fullConfig, databaseUrl, env: { ...process.env, GATEWAY_ENCRYPTION_KEY: "test-encryption-key", ...existing?.env }, ...runtime });
  tracked(gateway, databaseUrl.startsWith("file:") ? [dir, dirname(databaseUrl.slice("file:".length))] : [dir]);
  const server = gateway.listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${server.port}`;
  const operatorBasic = adminCredentials(fullConfig);
  const handle: TestGateway = {
    gateway,
    url,
    databaseUrl,
    databaseFiles() {
      if (databaseServer) return databaseServer.files();
      const path = databaseUrl.replace(/^file:/, "");
      return [path, `${path}-wal`].filter(existsSync);
    },
    admin(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("x-gateway-setup-token", SETUP_TOKEN);
      if (operatorBasic && !headers.has("authorization")) headers.set("authorization", `Bearer ${operatorBasic}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return fetch(`${url}${path}`, { ...init, headers, body });
    },
    stop: () => gateway.stop(),
    async restart() {
      return startGateway(config, { databaseUrl, dir, runtime, databaseServer, env: existing?.env });
    },
    async close() {
      await gateway.stop();
      await stopAllIn(dir);
      await databaseServer?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/**
 * Two gateways on one database, as two nodes of one deployment: `[first, second]`. The database
 * is a libSQL server, as in production; on a platform without the server binary, one file.
 */
export async function startNodes(config: GatewayConfig = {}): Promise<[TestGateway, TestGateway]> {
  const databaseServer = LIBSQL_SERVER_BINARY ? await startLibsqlServer() : undefined;
  const first = await startGateway(config, { databaseServer });
  return [first, await startGateway(config, { databaseUrl: first.databaseUrl })];
}

/** Stops nodes started by `startNodes`, the last first: the first one's close stops the server. */
export async function closeNodes(nodes: readonly TestGateway[]): Promise<void> {
  for (const node of nodes.toReversed()) await node.close();
}
