import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { fileURLToPath } from "node:url";
import { BUSY_TIMEOUT_MS } from "./embedded-file";
import * as schema from "./schema";

export type Database = ReturnType<typeof drizzle<typeof schema>>;

export interface OpenedDatabase {
  db: Database;
  ping(): Promise<boolean>;
  close(): void;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

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
    close: () => client.close(),
  };
}
