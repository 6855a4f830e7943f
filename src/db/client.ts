import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { fileURLToPath } from "node:url";
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
  const client = createClient({ url, authToken });
  if (url.startsWith("file:")) {
    // WAL lets log writes and dashboard reads proceed together; foreign keys give cascades.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA busy_timeout = 5000");
  }
  await client.execute("PRAGMA foreign_keys = ON");
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
