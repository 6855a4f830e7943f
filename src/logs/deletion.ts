import { inArray, lt } from "drizzle-orm";
import type { Database } from "../db/client";
import { requestLogs } from "../db/schema/logs";

/** Rows per statement: keeps bound parameters and lock time small. */
const CHUNK = 500;
const RETENTION_CHUNK = 5000;

/** Deletes the logs with these ids; ids that match no log are ignored. */
export async function deleteLogs(db: Database, ids: string[]): Promise<void> {
  for (let index = 0; index < ids.length; index += CHUNK) {
    await db.delete(requestLogs).where(inArray(requestLogs.id, ids.slice(index, index + CHUNK)));
  }
}

/** Deletes every log older than `cutoff` in small steps, so writers are never locked out for long. */
export async function deleteLogsBefore(db: Database, cutoff: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const oldest = db.select({ seq: requestLogs.seq }).from(requestLogs).where(lt(requestLogs.timestamp, cutoff)).limit(RETENTION_CHUNK);
    const result = await db.delete(requestLogs).where(inArray(requestLogs.seq, oldest));
    deleted += result.rowsAffected;
    if (result.rowsAffected < RETENTION_CHUNK) return deleted;
  }
}
