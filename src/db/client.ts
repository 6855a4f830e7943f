import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BUSY_TIMEOUT_MS } from "./embedded-file";
import * as schema from "./schema";

export type Database = ReturnType<typeof drizzle<typeof schema>>;

/** What /health/ready says of the database: answering with every migration this code knows applied, or not. */
export type SchemaState = "ok" | "unreachable" | "not_migrated";

export interface OpenedDatabase {
  db: Database;
  ping(): Promise<boolean>;
  schemaState(): Promise<SchemaState>;
  close(): void;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));
const KNOWN_MIGRATIONS: number = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, "utf8")).entries.length;

/** Opens the embedded file (or a libSQL server) and brings its schema up to date. */
export async function openDatabase(url: string, authToken?: string): Promise<OpenedDatabase> {
  // The client pools connections to a file: `timeout` (busy wait) applies to each of them,
  // where a PRAGMA would reach only one; libSQL turns foreign keys on for every connection.
  const client = createClient({ url, authToken, timeout: BUSY_TIMEOUT_MS });
  // WAL is a property of the file: log writes and dashboard reads proceed together.
  if (url.startsWith("file:")) await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder });
  return {
    db,
    async ping() {
      try {
        await client.execute("SELECT 1");
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
    close: () => client.close(),
  };
}
