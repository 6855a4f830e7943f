import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const providers = sqliteTable("providers", {
  name: text("name").primaryKey(),
  networkConfig: text("network_config", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
  customProviderConfig: text("custom_provider_config", { mode: "json" }).$type<{ base_provider_type: string } | null>(),
  /**
   * Whoever last wrote its address may point the gateway at loopback and private addresses (the
   * admin, or anyone under network.allow_private_addresses): every connection checks it.
   * Rows from before the outbound address policy keep their reach.
   */
  privateNetworkAllowed: integer("private_network_allowed", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * A key's whole configuration (value, per-cloud configs, OAuth secrets) lives encrypted in
 * `sealed_config`; the plain columns are what listing and selection need without decrypting.
 */
export const providerKeys = sqliteTable(
  "provider_keys",
  {
    id: text("id").primaryKey(),
    provider: text("provider")
      .notNull()
      .references(() => providers.name, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    weight: real("weight").notNull(),
    configHash: text("config_hash").notNull(),
    status: text("status").notNull(),
    description: text("description").notNull().default(""),
    /** The models the key listed at its last health check, for its configuration then (a change of configuration clears them). */
    reachedModels: text("reached_models", { mode: "json" }).$type<string[]>().notNull().default([]),
    sealedConfig: text("sealed_config").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("provider_keys_provider_idx").on(table.provider, table.position)],
);

export type ProviderRow = typeof providers.$inferSelect;
export type ProviderKeyRow = typeof providerKeys.$inferSelect;
