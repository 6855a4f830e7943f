import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Custom plugins (with the `path` of their module) and the operator's settings for built-in
 * ones (no path; a built-in without a row runs enabled with its default config).
 */
export const plugins = sqliteTable("plugins", {
  name: text("name").primaryKey(),
  /** A local file path or an http(s) URL; null for a built-in plugin. */
  path: text("path"),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
  /** Where a custom plugin runs among the custom plugins: lower first, equal ones in creation order. */
  runOrder: integer("run_order").notNull().default(0),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export type PluginRow = typeof plugins.$inferSelect;
