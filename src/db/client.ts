import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BUSY_TIMEOUT_MS, embeddedFilePath } from "./embedded-file";
import { FailureStreak } from "./failure-streak";
import { replicaClient } from "./replica-client";
import { ReplicaSync } from "./replica-sync";
import * as schema from "./schema";

export type Database = ReturnType<typeof drizzle<typeof schema>>;

/** What /health/ready says of the database: answering with every migration this code knows applied, or not. */
export type SchemaState = "ok" | "unreachable" | "not_migrated";

/** How this node holds its database: a file of its own, a libSQL server over the network, or a local replica of one. */
export type DatabaseMode = "embedded_file" | "remote" | "embedded_replica";

/** Where the database is: `url`, and for an embedded replica (`file:` url) the primary it syncs from. */
export interface DatabaseLocation {
  url: string;
  authToken?: string;
  /** The primary of an embedded replica (`libsql://…`, `http(s)://…`). */
  syncUrl?: string;
  /** Seconds between the replica's syncs from the primary. */
  syncIntervalSeconds?: number;
}

/** How far behind the primary an embedded replica is. */
export interface ReplicaStatus {
  primaryReachable: boolean;
  /** Milliseconds since the last successful sync; undefined before the first. */
  lagMs?: number;
  /** The primary's frame this replica has applied, as the last sync reported it. */
  frameNo?: number;
}

export interface OpenedDatabase {
  db: Database;
  mode: DatabaseMode;
  ping(): Promise<boolean>;
  schemaState(): Promise<SchemaState>;
  /** For an embedded replica: pulls what the primary has now (read-your-writes across connections, catch-up). */
  sync(): Promise<void>;
  /** For an embedded replica: its lag; undefined otherwise. */
  replicaStatus(): ReplicaStatus | undefined;
  close(): void;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));
const KNOWN_MIGRATIONS: number = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, "utf8")).entries.length;
const DEFAULT_SYNC_INTERVAL_SECONDS = 1;

export function databaseModeOf(location: DatabaseLocation): DatabaseMode {
  if (!embeddedFilePath(location.url)) return "remote";
  return location.syncUrl ? "embedded_replica" : "embedded_file";
}

/** Opens the embedded file, a libSQL server or an embedded replica of one, and brings its schema up to date. */
export async function openDatabase(location: DatabaseLocation | string, authToken?: string): Promise<OpenedDatabase> {
  const { url, syncUrl, syncIntervalSeconds = DEFAULT_SYNC_INTERVAL_SECONDS, ...rest } = typeof location === "string" ? { url: location, authToken } : location;
  const mode = databaseModeOf({ url, syncUrl });
  if (syncUrl && mode !== "embedded_replica") throw new Error(`database: an embedded replica needs a local file as its url (file:<path>), not ${url.replace(/\?.*$/, "")}`);
  const replica = mode === "embedded_replica" ? new ReplicaSync({ path: embeddedFilePath(url)!, syncUrl: syncUrl!, authToken: rest.authToken }) : undefined;
  if (replica) {
    try {
      await replica.sync();
    } catch (error) {
      replica.close();
      throw new Error(`database: the embedded replica ${url} could not sync from its primary ${syncUrl}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  // The client pools connections to a file: `timeout` (busy wait) applies to each of them,
  // where a PRAGMA would reach only one; libSQL turns foreign keys on for every connection.
  // A replica reads its file and writes to the primary, then syncs (read your writes).
  const client = replica
    ? replicaClient(createClient({ url, timeout: BUSY_TIMEOUT_MS }), createClient({ url: syncUrl!, authToken: rest.authToken }), () => replica.sync())
    : createClient({ url, authToken: rest.authToken, timeout: BUSY_TIMEOUT_MS });
  // Synced by a timer of ours rather than the client's, so that /health can tell the lag.
  const syncFailures = new FailureStreak(`syncing the embedded replica from ${syncUrl}`);
  const syncTimer = replica ? setInterval(() => void replica.sync().then(() => syncFailures.succeeded(), (error) => syncFailures.failed(error)), syncIntervalSeconds * 1000) : undefined;
  syncTimer?.unref?.();
  // WAL is a property of the file: log writes and dashboard reads proceed together.
  if (mode === "embedded_file") await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder });
  return {
    db,
    mode,
    async ping() {
      try {
        // A replica answers from its file; whether the primary does is what its syncs found.
        await client.execute("SELECT 1");
        if (replica) return replica.reachable;
        return true;
      } catch {
        return false;
      }
    },
    // A database swapped under a running node (a restore from an older backup) lacks migrations it relies on.
    async schemaState() {
      try {
        const { rows } = await client.execute("SELECT count(*) AS applied FROM __drizzle_migrations");
        return Number(rows[0]?.applied) >= KNOWN_MIGRATIONS ? "ok" : "not_migrated";
      } catch (error) {
        return /no such table/i.test(String(error)) ? "not_migrated" : "unreachable";
      }
    },
    sync: async () => replica?.sync(),
    replicaStatus: () =>
      replica && { primaryReachable: replica.reachable, lagMs: replica.lastSyncAt === undefined ? undefined : Date.now() - replica.lastSyncAt, frameNo: replica.frameNo },
    close() {
      clearInterval(syncTimer);
      replica?.close();
      client.close();
    },
  };
}
