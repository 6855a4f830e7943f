import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { governanceVirtualKeys } from "../db/schema";
import type { McpVirtualKey, VirtualKeyDirectory } from "./caller";

type KeyRow = typeof governanceVirtualKeys.$inferSelect;

const view = (row: KeyRow | undefined): McpVirtualKey | undefined => row && { id: row.id, name: row.name, active: row.isActive, mcpConfigs: row.mcpConfigs };

/**
 * Interim: virtual keys read straight from governance's table (looked up by the SHA-256 of the
 * value, as governance stores them), because createGovernance does not expose its key store
 * yet. The one place to replace with governance's own lookup once it does.
 */
export function virtualKeysFromDatabase(db: Database): VirtualKeyDirectory {
  const select = () => db.select().from(governanceVirtualKeys);
  return {
    byValue: async (value) => view(await select().where(eq(governanceVirtualKeys.keyHash, createHash("sha256").update(value).digest("hex"))).get()),
    byId: async (id) => view(await select().where(eq(governanceVirtualKeys.id, id)).get()),
  };
}
