import { Type as t } from "@sinclair/typebox";
import { Elysia } from "elysia";
import packageJson from "../../package.json";
import type { DatabaseMode, ReplicaStatus, SchemaState } from "../db/client";
import { replies } from "./replies";

const Version = t.Object({ version: t.String(), name: t.String() }, { title: "Version" });
const Health = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
    database: t.Union([t.Literal("ok"), t.Literal("unreachable")]),
    node: t.String({ description: "This node's name (GATEWAY_NODE_ID)." }),
    region: t.Optional(t.String({ description: "GATEWAY_REGION, when set." })),
    database_mode: t.Union([t.Literal("embedded_file"), t.Literal("remote"), t.Literal("embedded_replica")]),
    primary_reachable: t.Optional(t.Boolean({ description: "On a libSQL server or a replica of one." })),
    replica_lag_ms: t.Optional(t.Union([t.Number(), t.Null()], { description: "An embedded replica's time since its last sync; null before the first." })),
    replica_frame_no: t.Optional(t.Union([t.Number(), t.Null()])),
  },
  { title: "Health", description: "The same body answers 503 when the database is out of reach." },
);
const Liveness = t.Object({ status: t.Literal("ok") }, { title: "Liveness" });
const Readiness = t.Object(
  { status: t.Union([t.Literal("ready"), t.Literal("not_ready")]), database: t.Union([t.Literal("ok"), t.Literal("unreachable"), t.Literal("not_migrated")]), draining: t.Boolean({ description: "The node got SIGTERM or SIGINT and wants no new traffic." }) },
  { title: "Readiness", description: "The same body answers 503 while not ready." },
);

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
    }, replies({ 200: Health }, { summary: "Check the gateway's health" }))
    // Liveness asks nothing of the database: an outage must not get a healthy process restarted.
    .get("/health/live", () => ({ status: "ok" as const }), replies({ 200: Liveness }, { summary: "Check the process is alive", description: "Asks nothing of the database." }))
    .get("/health/ready", async ({ set }) => {
      const database = await databaseSchema();
      const isDraining = draining();
      const ready = database === "ok" && !isDraining;
      if (!ready) set.status = 503;
      return { status: ready ? "ready" : "not_ready", database, draining: isDraining };
    }, replies({ 200: Readiness }, { summary: "Check the node is ready for traffic", description: "Ready once the database answers with this code's schema, and until the node starts draining." }))
    .get("/api/version", () => ({ version: packageJson.version, name: packageJson.name }), replies({ 200: Version }, { summary: "Get the gateway's version" }));
