import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { gatewayMeta } from "../db/schema";
import type { ProviderStore } from "../provider-registry/store";
import type { GatewayConfig } from "./schema";

const SEEDED = "config_seeded_at";

/** config.json fills an empty database once; afterwards the API and the database own the state. */
export async function seedFromConfig(db: Database, config: GatewayConfig, providers: ProviderStore): Promise<void> {
  if (await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, SEEDED)).get()) return;
  for (const [name, seed] of Object.entries(config.providers ?? {})) {
    if (!providers.get(name)) await providers.create(name, seed);
  }
  await db.insert(gatewayMeta).values({ key: SEEDED, value: new Date().toISOString() }).onConflictDoNothing();
}
