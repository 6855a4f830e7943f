import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/app";
import { resolveEnvReference } from "../../src/config/env-reference";
import type { GatewayConfig } from "../../src/config/schema";

export const SETUP_TOKEN = "test-setup-token";

export interface TestGateway {
  gateway: Gateway;
  url: string;
  databaseUrl: string;
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
export type TestRuntime = Pick<GatewayOptions, "clock" | "resolveHost" | "actorClock" | "actorLease">;

/** Starts the gateway in-process on a random port with a fresh embedded database. */
export async function startGateway(config: GatewayConfig = {}, existing?: { databaseUrl?: string; dir?: string; runtime?: TestRuntime }): Promise<TestGateway> {
  const dir = existing?.dir ?? mkdtempSync(join(tmpdir(), "gateway-test-"));
  const databaseUrl = existing?.databaseUrl ?? `file:${join(dir, "gateway.db")}`;
  const runtime = existing?.runtime ?? {};
  const fullConfig: GatewayConfig = { setup_token: SETUP_TOKEN, ...config };
  const gateway = await createGateway({ config: fullConfig, databaseUrl, env: { ...process.env, GATEWAY_ENCRYPTION_KEY: "test-encryption-key" }, ...runtime });
  const server = gateway.listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${server.port}`;
  const operatorBasic = adminCredentials(fullConfig);
  const handle: TestGateway = {
    gateway,
    url,
    databaseUrl,
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
      return startGateway(config, { databaseUrl, dir, runtime });
    },
    async close() {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** Two gateways on one database, as two nodes of one deployment: `[first, second]`. */
export async function startNodes(config: GatewayConfig = {}): Promise<[TestGateway, TestGateway]> {
  const first = await startGateway(config);
  return [first, await startGateway(config, { databaseUrl: first.databaseUrl })];
}

/** Stops nodes started by `startNodes`, the last first: the first one's close deletes the database. */
export async function closeNodes(nodes: readonly TestGateway[]): Promise<void> {
  for (const node of nodes.toReversed()) await node.close();
}
