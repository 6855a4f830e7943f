import { createClient } from "@libsql/client";
import journal from "../../src/db/migrations/meta/_journal.json";

/**
 * Takes a stopped gateway's database back to before migration `tag`: runs `undo` (statements
 * reverting it and every later one) and forgets those migrations ran, so the next start applies
 * them again, as it would on a database from before they existed.
 */
export async function undoMigrationsFrom(databaseUrl: string, tag: string, undo: string[]): Promise<void> {
  const migration = journal.entries.find((entry) => entry.tag === tag);
  if (!migration) throw new Error(`no migration ${tag}`);
  const client = createClient({ url: databaseUrl });
  try {
    await client.batch([...undo, { sql: "DELETE FROM __drizzle_migrations WHERE created_at >= ?", args: [migration.when] }], "write");
  } finally {
    client.close();
  }
}
