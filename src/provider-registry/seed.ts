import { Value } from "@sinclair/typebox/value";
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { gatewayMeta } from "../db/schema";
import { GatewayError } from "../http/errors";
import { normalizeKey, resolveFamily } from "./runtime";
import { ProviderName, type ProviderUpdateInput } from "../config/sections/providers";
import type { ProviderStore } from "./store";
import { ConfigError } from "../config/load";
import type { GatewayConfig } from "../config/schema";
import type { ProviderFamilies } from "../upstream/adapter";

const SEEDED = "config_seeded_at";

/** A rule the API would answer with a 400, reported as a config error naming the field. */
function asConfigError(error: unknown, provider: string): unknown {
  if (!(error instanceof GatewayError)) return error;
  const field = error.param ? `providers.${provider}.${error.param}` : `providers.${provider}`;
  return new ConfigError(`config: field '${field}': ${error.message}`);
}

/** The checks the API applies to a provider body, run on every start so a bad config.json never half-starts. */
function validateProviderSeed(families: ProviderFamilies, name: string, seed: ProviderUpdateInput): void {
  if (!Value.Check(ProviderName, name)) throw new ConfigError(`config: field 'providers.${name}': provider names are lowercase letters, digits, '.', '_' and '-'`);
  try {
    resolveFamily(families, name, seed.custom_provider_config, seed.network_config ?? {});
    for (const [index, key] of (seed.keys ?? []).entries()) normalizeKey(key, name, `keys[${index}].`);
  } catch (error) {
    throw asConfigError(error, name);
  }
}

/** config.json fills an empty database once; afterwards the API and the database own the state. */
export async function seedFromConfig(db: Database, config: GatewayConfig, providers: ProviderStore): Promise<void> {
  const seeds = Object.entries(config.providers ?? {});
  for (const [name, seed] of seeds) validateProviderSeed(providers.families, name, seed);
  if (await db.select().from(gatewayMeta).where(eq(gatewayMeta.key, SEEDED)).get()) return;
  for (const [name, seed] of seeds) {
    if (providers.get(name)) continue;
    await providers.create(name, seed).catch((error: unknown) => {
      throw asConfigError(error, name);
    });
  }
  await db.insert(gatewayMeta).values({ key: SEEDED, value: new Date().toISOString() }).onConflictDoNothing();
}
