import { Elysia } from "elysia";
import packageJson from "../../package.json";
import type { DatabaseMode, ReplicaStatus, SchemaState } from "../db/client";

export interface SystemProbes {
  /** Whether the database answers. */
  pingDatabase(): Promise<boolean>;
  /** Whether it answers with the schema this code needs. */
  databaseSchema(): Promise<SchemaState>;
  /** True from the first SIGTERM or SIGINT on: the node is on its way out and wants no new traffic. */
  draining(): boolean;
  /** This node's name (GATEWAY_NODE_ID) and region (GATEWAY_REGION). */
  node: string;
  region?: string;
  databaseMode: DatabaseMode;
  /** An embedded replica's lag; undefined on any other database. */
  replicaStatus(): ReplicaStatus | undefined;
}

/** /health, its liveness and readiness halves for orchestrators, and /api/version: public, cheap, and honest about the database. */
export const systemRoutes = ({ pingDatabase, databaseSchema, draining, node, region, databaseMode, replicaStatus }: SystemProbes) =>
  new Elysia({ name: "system" })
    .get("/health", async ({ set }) => {
      const reachable = await pingDatabase();
      const database = reachable ? "ok" : "unreachable";
      if (database !== "ok") set.status = 503;
      const replica = replicaStatus();
      return {
        status: database === "ok" ? "ok" : "degraded",
        database,
        node,
        ...(region && { region }),
        database_mode: databaseMode,
        ...(databaseMode !== "embedded_file" && { primary_reachable: reachable }),
        ...(replica && { replica_lag_ms: replica.lagMs ?? null, replica_frame_no: replica.frameNo ?? null }),
      };
    })
    // Liveness asks nothing of the database: an outage must not get a healthy process restarted.
    .get("/health/live", () => ({ status: "ok" }))
    .get("/health/ready", async ({ set }) => {
      const database = await databaseSchema();
      const isDraining = draining();
      const ready = database === "ok" && !isDraining;
      if (!ready) set.status = 503;
      return { status: ready ? "ready" : "not_ready", database, draining: isDraining };
    })
    .get("/api/version", () => ({ version: packageJson.version, name: packageJson.name }));
