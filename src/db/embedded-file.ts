import { expandConfig, isInMemoryConfig } from "@libsql/core/config";
import Database from "libsql";

/** How long a connection waits for another's lock before failing (GATEWAY_BUSY_TIMEOUT_MS, for tests that hold a lock on purpose). */
export const BUSY_TIMEOUT_MS = Number(process.env.GATEWAY_BUSY_TIMEOUT_MS) || 5000;

export type EmbeddedConnection = InstanceType<typeof Database>;

/** The file of an embedded database URL (`file:...`, read as the libSQL client reads it); undefined for a server or `:memory:`. */
export function embeddedFilePath(url: string): string | undefined {
  const config = expandConfig({ url }, true);
  return config.scheme === "file" && !isInMemoryConfig(config) ? config.path : undefined;
}

/** A connection of the driver itself to an embedded file, for threads that must not load the client. */
export function openEmbeddedFile(path: string): EmbeddedConnection {
  return new Database(path, { timeout: BUSY_TIMEOUT_MS });
}
