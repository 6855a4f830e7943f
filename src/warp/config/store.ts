import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { warpConfig } from "../../db/schema/warp";
import { advancedUpdatedAt } from "../../db/table-changes";
import { fromConfigStore } from "../errors";
import { UNSET_WARP_CONFIG } from "./resolve";
import type { StoredWarpConfig } from "./schema";

const ROW_ID = 1;

/**
 * The agent's configuration in the database. It is read on every use rather than cached, so
 * every node of a shared database sees a write at once; it is one primary-key lookup. (The live
 * indexer alone remembers a read: src/warp/index.ts tells it of other nodes' writes.)
 */
export class WarpConfigStore {
  /** `onWrite` tells this node's readers that hold a recent read (the live indexer) to read again. */
  constructor(
    private readonly db: Database,
    private readonly onWrite: () => void = () => {},
  ) {}

  read(): Promise<StoredWarpConfig> {
    return fromConfigStore(async () => {
      const row = await this.db.select({ value: warpConfig.value }).from(warpConfig).where(eq(warpConfig.id, ROW_ID)).get();
      // Fields added after a row was written take their unset value.
      return row ? { ...UNSET_WARP_CONFIG, ...(JSON.parse(row.value) as StoredWarpConfig) } : UNSET_WARP_CONFIG;
    });
  }

  write(config: StoredWarpConfig, now: Date): Promise<void> {
    return fromConfigStore(async () => {
      const value = JSON.stringify(config);
      // Other nodes notice a write by its updated_at.
      const updatedAt = advancedUpdatedAt(warpConfig.updatedAt, now.getTime());
      await this.db.insert(warpConfig).values({ id: ROW_ID, value, updatedAt: now }).onConflictDoUpdate({ target: warpConfig.id, set: { value, updatedAt } });
      this.onWrite();
    });
  }
}
