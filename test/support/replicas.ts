import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GatewayConfig } from "../../src/config/schema";
import { startGateway, type TestGateway } from "./gateway";
import { type LibsqlServer, startLibsqlServer } from "./libsql-server";

/** Seconds between a test replica's syncs: the deployment's default. */
export const TEST_SYNC_INTERVAL_SECONDS = 1;

/**
 * The variables a node of a multi-region deployment sets (deploy/compose.yaml sets the same):
 * its replica's local file, the primary, the primary's token, the sync interval, and the node's
 * name and region.
 */
export function replicaNodeVariables(primary: Pick<LibsqlServer, "url" | "authToken">, replicaFile: string, region: string) {
  return {
    GATEWAY_DB_URL: `file:${replicaFile}`,
    GATEWAY_DB_SYNC_URL: primary.url,
    GATEWAY_DB_AUTH_TOKEN: primary.authToken ?? "",
    GATEWAY_DB_SYNC_INTERVAL: String(TEST_SYNC_INTERVAL_SECONDS),
    GATEWAY_NODE_ID: `gateway-${region}`,
    GATEWAY_REGION: region,
  };
}

export interface ReplicaDeployment {
  primary: LibsqlServer;
  nodes: TestGateway[];
  close(): Promise<void>;
}

/** Starts one node per region, each on an embedded replica of its own of one primary (a libSQL server with JWT auth). */
export async function startReplicaNodes(config: GatewayConfig, regions: readonly string[]): Promise<ReplicaDeployment> {
  const primary = await startLibsqlServer({ jwt: true });
  const nodes: TestGateway[] = [];
  const dirs: string[] = [];
  for (const region of regions) {
    const dir = mkdtempSync(join(tmpdir(), `replica-${region}-`));
    dirs.push(dir);
    const variables = replicaNodeVariables(primary, join(dir, "replica.db"), region);
    const database = { ...config.database, sync_url: variables.GATEWAY_DB_SYNC_URL, auth_token: variables.GATEWAY_DB_AUTH_TOKEN, sync_interval_seconds: TEST_SYNC_INTERVAL_SECONDS };
    nodes.push(await startGateway({ ...config, database }, { databaseUrl: variables.GATEWAY_DB_URL, dir, env: { GATEWAY_NODE_ID: variables.GATEWAY_NODE_ID, GATEWAY_REGION: region } }));
  }
  return {
    primary,
    nodes,
    async close() {
      for (const node of nodes) await node.stop();
      await primary.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
